import MQTTOutput

extension ConfigurationSetting {
    /// The `mqtt_*` settings (docs/mqtt.md).
    static let mqtt: [ConfigurationSetting] = [
        optional(
            "mqtt_url", flag: "mqtt", "URL", "MQTT broker: mqtt://host[:1883] or mqtts://host[:8883] (empty: no MQTT)"
        ) { config, value throws(SettingError) in
            guard let value else { return config.mqtt.broker = nil }
            do throws(MQTTConfigurationError) {
                config.mqtt.broker = try BrokerURL(parsing: value)
            } catch {
                throw SettingError(error.description)
            }
        },
        single("mqtt_protocol", flag: nil, "VERSION", "MQTT protocol version: 3.1.1 or 5") {
            config, value throws(SettingError) in
            guard let version = MQTTOutput.ProtocolVersion(rawValue: value) else {
                throw SettingError("expected 3.1.1 or 5, got '\(value)'")
            }
            config.mqtt.protocolVersion = version
        },
        optional("mqtt_username", flag: nil, "NAME", "MQTT user name") { config, value in
            config.mqtt.username = value
        },
        optional("mqtt_password_file", flag: nil, "PATH", "File holding the MQTT password (first line)") {
            config, value throws(SettingError) in
            config.mqtt.passwordFile = try value.map { value throws(SettingError) in
                try ValueParser.absolutePath(value, key: "mqtt_password_file")
            }
        },
        optional("mqtt_ca_file", flag: nil, "PATH", "CA certificates to verify the broker (TLS; default: the system's)")
        {
            config, value throws(SettingError) in
            config.mqtt.caFile = try value.map { value throws(SettingError) in
                try ValueParser.absolutePath(value, key: "mqtt_ca_file")
            }
        },
        optional("mqtt_cert_file", flag: nil, "PATH", "Client certificate (TLS)") {
            config, value throws(SettingError) in
            config.mqtt.certFile = try value.map { value throws(SettingError) in
                try ValueParser.absolutePath(value, key: "mqtt_cert_file")
            }
        },
        optional("mqtt_key_file", flag: nil, "PATH", "Client certificate's key (TLS)") {
            config, value throws(SettingError) in
            config.mqtt.keyFile = try value.map { value throws(SettingError) in
                try ValueParser.absolutePath(value, key: "mqtt_key_file")
            }
        },
        optional("mqtt_client_id", flag: nil, "ID", "MQTT client id (default blectl-<gateway>)") { config, value in
            config.mqtt.clientID = value
        },
        optional(
            "mqtt_gateway", flag: "mqtt-gateway", "NAME", "This gateway's name in MQTT topics (default: the host name)"
        ) { config, value in
            config.mqtt.gateway = value
        },
        single("mqtt_topic_prefix", flag: nil, "PREFIX", "First level of blectl's MQTT topics") { config, value in
            config.mqtt.topicPrefix = value
        },
        optional("mqtt_discovery_prefix", flag: nil, "PREFIX", "Home Assistant discovery prefix (empty: no discovery)")
        {
            config, value in
            config.mqtt.discoveryPrefix = value ?? ""
        },
        single("mqtt_qos", flag: nil, "N", "QoS of MQTT messages: 0, 1 or 2") { config, value throws(SettingError) in
            config.mqtt.qos = try ValueParser.integer(value, within: 0...2)
        },
        ConfigurationSetting(
            key: "mqtt_retain_state", flag: nil, kind: .boolean, valueName: "", help: "Retain MQTT state messages"
        ) { config, values throws(SettingError) in
            config.mqtt.retainState = try ValueParser.boolean(values[0])
        },
        single("mqtt_expire_after", flag: nil, "DURATION", "Home Assistant expire_after: auto, a duration, or 0 (none)")
        {
            config, value throws(SettingError) in
            guard value != "auto" else { return config.mqtt.expireAfter = nil }
            config.mqtt.expireAfter = try ValueParser.duration(value, within: .zero...Duration.seconds(7 * 86400))
        },
        single("mqtt_backlog_max", flag: nil, "N", "Most readings kept waiting for the MQTT broker") {
            config, value throws(SettingError) in
            config.mqtt.backlogMax = try ValueParser.integer(value, within: 1...100_000_000)
        },
    ]
}

extension ValueParser {
    static func absolutePath(_ text: String, key: String) throws(SettingError) -> String {
        guard text.hasPrefix("/") else { throw SettingError("\(key) must be an absolute path, got '\(text)'") }
        return text
    }
}
