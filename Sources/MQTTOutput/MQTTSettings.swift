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
        }.documented(
            "The broker: _mqtt://host[:1883]_, or _mqtts://host[:8883]_ for TLS; nothing else in it (credentials "
                + "go in *mqtt_username* and *mqtt_password_file*). Empty (the default): no MQTT."),
        .value("mqtt_protocol", "VERSION", "MQTT protocol version: 3.1.1 or 5", at: \.protocolVersion) {
            text throws(SettingError) in
            guard let version = MQTTOutput.ProtocolVersion(rawValue: text) else {
                throw SettingError("expected 3.1.1 or 5, got '\(text)'")
            }
            return version
        }.documented("The MQTT protocol version: _3.1.1_ or _5_.", shown: { $0.protocolVersion.rawValue }),
        .optional("mqtt_username", "NAME", "MQTT user name", at: \.username) { $0 }.documented(
            "The user name. Default none."),
        file("mqtt_password_file", "File holding the MQTT password (first line)", at: \.passwordFile).documented(
            "An absolute path to a file whose first line is the password (never the password itself; it is never "
                + "logged). Needs *mqtt_username*. A file other users may read or write is refused at start (exit "
                + "78): *chmod 600* it, or 640 with a group blectld is in. With a plain *mqtt://* broker off this "
                + "host blectld warns that the password crosses the network unencrypted; use *mqtts://*. Under "
                + "systemd, hand a root-only file over with *LoadCredential=* (see _blectld-mqtt.conf_) and name "
                + "_/run/credentials/blectld.service/mqtt-password_ here."),
        file("mqtt_ca_file", "CA certificates to verify the broker (TLS; default: the system's)", at: \.caFile)
            .documented(
                "The CA certificates that verify the broker (TLS only); absolute. Default: the system's, in "
                    + "_/etc/ssl/certs_. The broker's name is always checked."),
        file("mqtt_cert_file", "Client certificate (TLS)", at: \.certFile).documented(
            "A client certificate, for brokers that want one (TLS only); absolute. Set with *mqtt_key_file*, both "
                + "or neither."),
        file("mqtt_key_file", "Client certificate's key (TLS)", at: \.keyFile).documented(
            "The client certificate's key (TLS only); absolute."),
        .optional("mqtt_client_id", "ID", "MQTT client id (default blectl-<gateway>)", at: \.clientID) { $0 }
            .documented(
                "The MQTT client id. Default _blectl-GATEWAY_. Two clients with one id throw each other off the "
                    + "broker: each gateway needs its own."),
        .optional(
            "mqtt_gateway", flag: "mqtt-gateway", "NAME", "This gateway's name in MQTT topics (default: the host name)",
            at: \.gateway
        ) { $0 }.documented(
            "This gateway's name in topics and payloads: one topic level (no _/_, _+_ or _#_). Default: the host "
                + "name."),
        .value("mqtt_topic_prefix", "PREFIX", "First level of blectl's MQTT topics", at: \.topicPrefix) { $0 }
            .documented(
                "The first level of every topic but discovery's: _PREFIX_/_DEVICE_ID_/state, "
                    + "_PREFIX_/gateways/_GATEWAY_/status."),
        Setting(
            key: "mqtt_discovery_prefix", flag: nil, kind: .optional, valueName: "PREFIX",
            help: "Home Assistant discovery prefix (empty: no discovery)",
            details: "Home Assistant's discovery prefix; empty (*\"\"*) turns discovery off.",
            shown: { $0.discoveryPrefix }
        ) { settings, values in settings.discoveryPrefix = values.first ?? "" },
        .integer("mqtt_qos", "N", "QoS of MQTT messages: 0, 1 or 2", at: \.qos, within: 0...2).documented(
            "The QoS of readings, errors and discovery configs: 0, 1 or 2."),
        .boolean("mqtt_retain_state", "Retain MQTT state messages", at: \.retainState).documented(
            "Whether state messages are retained."),
        .value(
            "mqtt_expire_after", "DURATION", "Home Assistant expire_after: auto, a duration, or 0 (none)",
            at: \.expireAfter
        ) { text throws(SettingError) in
            text == "auto" ? nil : try ValueParser.duration(text, within: .zero...Duration.seconds(7 * 86400))
        }.documented(
            "Home Assistant marks a sensor unavailable after this long without a reading, up to 7 days: _auto_ is "
                + "three times the device's interval, at least 60 s; _0_ for never.",
            shown: { $0.expireAfter.map(DurationText.spelling) ?? "auto" }),
        .integer(
            "mqtt_backlog_max", "N", "Most readings kept waiting for the MQTT broker", at: \.backlogMax,
            within: 1...100_000_000
        ).documented(
            "Readings kept waiting while the broker is away (read back from the history when it returns), 1 to "
                + "100000000; the oldest beyond this are dropped, counted and logged."),
    ]

    /// The settings under their heading in the man page and the sample configuration.
    public static let section = SettingSection(
        "MQTT",
        introduction: "Publishes every reading to an MQTT broker, with Home Assistant discovery; readings wait in "
            + "the history while the broker is away and go out in order when it returns. Under systemd it needs "
            + "the drop-in _blectld-mqtt.conf_ (*blectld*(8)). See _mqtt.md_.", settings)

    /// A file's absolute path, or none.
    private static func file(
        _ key: String, _ help: String, at path: any WritableKeyPath<Self, String?> & Sendable
    ) -> Setting<Self> {
        .optional(key, "PATH", help, at: path) { text throws(SettingError) in
            try ValueParser.absolutePath(text, key: key)
        }
    }
}
