extension MQTTOutput {
    /// The MQTT protocol version spoken to the broker.
    public enum ProtocolVersion: String, Equatable, Sendable, CaseIterable {
        /// MQTT 3.1.1.
        case v311 = "3.1.1"
        /// MQTT 5.
        case v5 = "5"
    }

    /// What can be set (`mqtt_*` keys, docs/mqtt.md); MQTT is off while ``broker`` is nil.
    public struct Settings: Equatable, Sendable {
        /// The broker (`mqtt_url`); nil: no MQTT.
        public var broker: BrokerURL?
        /// The protocol version.
        public var protocolVersion = ProtocolVersion.v311
        /// The user name, if the broker wants one.
        public var username: String?
        /// A file holding the password (its first line), read at start.
        public var passwordFile: String?
        /// The CA certificates to verify the broker with (TLS); nil: the system's.
        public var caFile: String?
        /// A client certificate and its key, for brokers that want one (TLS).
        public var certFile: String?
        /// The client certificate's key.
        public var keyFile: String?
        /// The gateway's name in topics and payloads; nil: the host name.
        public var gateway: String?
        /// The client id; `blectl-<gateway>` when nil.
        public var clientID: String?
        /// The first level of every topic but discovery's.
        public var topicPrefix = "blectl"
        /// Home Assistant's discovery prefix; empty turns discovery off.
        public var discoveryPrefix = "homeassistant"
        /// The QoS of readings, errors and discovery (0, 1 or 2).
        public var qos: Int32 = 1
        /// Whether state messages are retained.
        public var retainState = false
        /// Home Assistant's `expire_after` for every sensor; nil: three times the device's
        /// interval, at least ``Configuration/minimumExpireAfter``; zero: none.
        public var expireAfter: Duration?
        /// The most readings kept waiting for the broker; older ones are dropped and counted.
        public var backlogMax = 100_000

        /// The defaults: no MQTT.
        public init() {}
    }

    /// Everything the MQTT output is told: the ``Settings`` (read through, as
    /// `configuration.topicPrefix`), the broker and gateway they resolve to, and what is fixed.
    @dynamicMemberLookup
    public struct Configuration: Equatable, Sendable {
        /// The broker.
        public var broker: BrokerURL
        /// The gateway's name in topics and payloads (the host name by default).
        public var gateway: String
        /// The settable part.
        public var settings = Settings()
        /// The keepalive interval.
        public var keepalive: Duration = .seconds(30)
        /// The first and the largest delay between connection attempts (with ±20 % jitter).
        public var reconnect: ClosedRange<Duration> = .seconds(1)...Duration.seconds(60)
        /// Messages handed to the broker before its acknowledgements.
        public var window = 100
        /// How often the adapters are read from `status` while connected (published when changed).
        public var adaptersPeriod: Duration = .seconds(30)
        /// Where the acknowledged position is kept (`mqtt.position`); nil: nowhere.
        public var stateDirectory: String?

        /// The shortest default `expire_after`.
        public static let minimumExpireAfter: Duration = .seconds(60)

        /// A configuration for `broker` and `gateway`, with the defaults.
        public init(broker: BrokerURL, gateway: String) {
            self.broker = broker
            self.gateway = gateway
        }

        /// The configuration `settings` ask for, the gateway named `hostName` unless they name
        /// one; nil when they name no broker (no MQTT).
        public init?(settings: Settings, hostName: @autoclosure () -> String) {
            guard let broker = settings.broker else { return nil }
            self.init(broker: broker, gateway: settings.gateway ?? hostName())
            self.settings = settings
        }

        /// A setting, read or written through.
        public subscript<Value>(dynamicMember path: WritableKeyPath<Settings, Value>) -> Value {
            get { settings[keyPath: path] }
            set { settings[keyPath: path] = newValue }
        }

        /// The client id in use.
        public var effectiveClientID: String { settings.clientID ?? "blectl-\(gateway)" }

        /// Checks what can be checked before connecting: topic-safe names, readable files.
        public func validate() throws(MQTTConfigurationError) {
            for (key, value) in [("mqtt_gateway", gateway), ("mqtt_topic_prefix", settings.topicPrefix)] {
                try Self.checkTopicLevel(value, key: key, allowsSlash: key == "mqtt_topic_prefix")
            }
            if !settings.discoveryPrefix.isEmpty {
                try Self.checkTopicLevel(settings.discoveryPrefix, key: "mqtt_discovery_prefix", allowsSlash: true)
            }
            if (settings.certFile == nil) != (settings.keyFile == nil) {
                throw MQTTConfigurationError("mqtt_cert_file and mqtt_key_file go together: set both or neither")
            }
            let files = [
                ("mqtt_ca_file", settings.caFile), ("mqtt_cert_file", settings.certFile),
                ("mqtt_key_file", settings.keyFile),
            ]
            if !broker.tls, let (key, _) = files.first(where: { $0.1 != nil }) {
                throw MQTTConfigurationError("\(key) needs a TLS broker URL (mqtts://)")
            }
        }

        private static func checkTopicLevel(_ value: String, key: String, allowsSlash: Bool)
            throws(MQTTConfigurationError)
        {
            let bad: Set<Character> = allowsSlash ? ["+", "#"] : ["+", "#", "/"]
            guard !value.isEmpty, !value.contains(where: { bad.contains($0) || $0.isNewline }),
                !value.hasPrefix("/"), !value.hasSuffix("/")
            else {
                let what = allowsSlash ? "levels without + or #" : "one topic level (no /, + or #)"
                throw MQTTConfigurationError("\(key) must be \(what), got '\(value)'")
            }
        }
    }
}
