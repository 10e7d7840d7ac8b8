public import UnixSupport

extension MQTTOutput.Settings {
    /// The `mqtt_*` settings (docs/mqtt.md), in the order help lists them; the defaults are
    /// the properties'.
    public static let settings: [Setting<Self>] = [
        .optional(
            "mqtt_url", flag: "mqtt", "URL", "MQTT broker: mqtt://host[:1883] or mqtts://host[:8883] (empty: no MQTT)",
            at: \.broker
        ) { text throws(SettingError) in
            do throws(MQTTConfigurationError) {
                return try BrokerURL(parsing: text)
            } catch {
                throw SettingError(error.description)
            }
        },
        .value("mqtt_protocol", "VERSION", "MQTT protocol version: 3.1.1 or 5", at: \.protocolVersion) {
            text throws(SettingError) in
            guard let version = MQTTOutput.ProtocolVersion(rawValue: text) else {
                throw SettingError("expected 3.1.1 or 5, got '\(text)'")
            }
            return version
        },
        .optional("mqtt_username", "NAME", "MQTT user name", at: \.username) { $0 },
        file("mqtt_password_file", "File holding the MQTT password (first line)", at: \.passwordFile),
        file("mqtt_ca_file", "CA certificates to verify the broker (TLS; default: the system's)", at: \.caFile),
        file("mqtt_cert_file", "Client certificate (TLS)", at: \.certFile),
        file("mqtt_key_file", "Client certificate's key (TLS)", at: \.keyFile),
        .optional("mqtt_client_id", "ID", "MQTT client id (default blectl-<gateway>)", at: \.clientID) { $0 },
        .optional(
            "mqtt_gateway", flag: "mqtt-gateway", "NAME", "This gateway's name in MQTT topics (default: the host name)",
            at: \.gateway
        ) { $0 },
        .value("mqtt_topic_prefix", "PREFIX", "First level of blectl's MQTT topics", at: \.topicPrefix) { $0 },
        Setting(
            key: "mqtt_discovery_prefix", flag: nil, kind: .optional, valueName: "PREFIX",
            help: "Home Assistant discovery prefix (empty: no discovery)"
        ) { settings, values in settings.discoveryPrefix = values.first ?? "" },
        .integer("mqtt_qos", "N", "QoS of MQTT messages: 0, 1 or 2", at: \.qos, within: 0...2),
        .boolean("mqtt_retain_state", "Retain MQTT state messages", at: \.retainState),
        .value(
            "mqtt_expire_after", "DURATION", "Home Assistant expire_after: auto, a duration, or 0 (none)",
            at: \.expireAfter
        ) { text throws(SettingError) in
            text == "auto" ? nil : try ValueParser.duration(text, within: .zero...Duration.seconds(7 * 86400))
        },
        .integer(
            "mqtt_backlog_max", "N", "Most readings kept waiting for the MQTT broker", at: \.backlogMax,
            within: 1...100_000_000),
    ]

    /// A file's absolute path, or none.
    private static func file(
        _ key: String, _ help: String, at path: any WritableKeyPath<Self, String?> & Sendable
    ) -> Setting<Self> {
        .optional(key, "PATH", help, at: path) { text throws(SettingError) in
            try ValueParser.absolutePath(text, key: key)
        }
    }
}
