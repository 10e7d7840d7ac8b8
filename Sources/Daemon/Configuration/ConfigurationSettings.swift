import Central
import BlectlProtocol
import HTTPOutput
import UnixSupport

/// One configurable setting: its file key, its command-line flag, and how to apply a value.
///
/// The file and the command line share this table, so both accept the same values and
/// report the same errors.
struct ConfigurationSetting: Sendable {
    enum Kind: Sendable {
        /// One value.
        case single
        /// One value, or nothing (`key =` in the file) for the default.
        case optional
        /// A comma-separated list in the file, a repeated option on the command line.
        case list
        /// `yes`/`no` in the file, a flag (meaning yes) on the command line.
        case boolean
    }

    /// The file key, `snake_case`.
    var key: String
    /// The command-line option without dashes, if the setting has one.
    var flag: String?
    var kind: Kind
    var valueName: String
    var help: String
    /// Applies the values (one unless `kind` is `.list`); throws a message for a person.
    var apply: @Sendable (inout DaemonConfiguration, [String]) throws(SettingError) -> Void

    var option: OptionSpec? {
        guard let flag else { return nil }
        switch kind {
        case .single, .optional: return .value(flag, valueName, help: help)
        case .list: return .repeated(flag, valueName, help: help)
        case .boolean: return .flag(flag, help: help)
        }
    }
}

/// Why a value was refused; the caller adds where it came from.
struct SettingError: Error, Equatable {
    var message: String

    init(_ message: String) {
        self.message = message
    }
}

extension ConfigurationSetting {
    /// Every setting, in the order help lists them.
    static let all: [ConfigurationSetting] =
        [
            single("socket", flag: "socket", "PATH", "Unix socket to listen on") { config, value throws(SettingError) in
                config.socketPath = try ValueParser.socketPath(value)
            },
            optional("socket_group", flag: "socket-group", "GROUP", "Group owning the socket (mode 0660)") {
                config, value in config.socketGroup = value
            },
            single("adapter", flag: "adapter", "NAME", "Bluetooth adapter: hci0, its address, or auto") {
                config, value throws(SettingError) in
                guard AdapterSelection(value) != nil else {
                    throw SettingError("not an adapter (hciN, an address, or auto): \(value)")
                }
                config.adapter = value
            },
            single("log_level", flag: "log-level", "LEVEL", "Log level: \(LogLevel.names)") {
                config, value throws(SettingError) in
                guard let level = LogLevel(name: value) else {
                    throw SettingError("unknown log level '\(value)' (use \(LogLevel.names))")
                }
                config.logLevel = level
            },
            ConfigurationSetting(
                key: "names", flag: "name", kind: .list, valueName: "NAME",
                help: "Advertised name marking a thermometer (repeatable)"
            ) { config, values in config.names = values },
            ConfigurationSetting(
                key: "gatt_thermometers", flag: nil, kind: .boolean, valueName: "",
                help: "Look for GATT thermometers and connect to them (no: advertising sensors only)"
            ) { config, values throws(SettingError) in
                config.gattThermometers = try ValueParser.boolean(values[0])
            },
            ConfigurationSetting(
                key: "service_uuids", flag: "service-uuid", kind: .list, valueName: "UUID",
                help: "Extra thermometer service UUID (repeatable)"
            ) { config, values throws(SettingError) in
                var uuids: [String] = []
                for value in values { uuids.append(try ValueParser.uuid(value)) }
                config.serviceUUIDs = uuids
            },
            single("reconnect_min", flag: nil, "SECONDS", "First reconnection delay") {
                config, value throws(SettingError) in
                config.reconnect.minimum = try ValueParser.duration(
                    value, within: .milliseconds(100)...Duration.seconds(3600))
            },
            single("reconnect_max", flag: nil, "SECONDS", "Largest reconnection delay") {
                config, value throws(SettingError) in
                config.reconnect.maximum = try ValueParser.duration(
                    value, within: .milliseconds(100)...Duration.seconds(86400))
            },
            single("reconnect_jitter", flag: nil, "FRACTION", "Random spread of delays, 0–1") {
                config, value throws(SettingError) in
                guard let jitter = Double(value), (0...1).contains(jitter) else {
                    throw SettingError("expected a fraction between 0 and 1, got '\(value)'")
                }
                config.reconnect.jitter = jitter
            },
            optional(
                "state_dir", flag: "state-dir", "DIR",
                "Directory of the history database (default \(DaemonConfiguration.defaultStateDirectory); "
                    + "a temporary one with --mock)"
            ) { config, value throws(SettingError) in
                if let value, !value.hasPrefix("/") {
                    throw SettingError("the state directory must be absolute, got '\(value)'")
                }
                config.stateDirectory = value
            },
            ConfigurationSetting(
                key: "history", flag: nil, kind: .boolean, valueName: "",
                help: "Keep every reading in the history database (no: none is kept)"
            ) { config, values throws(SettingError) in
                config.history = try ValueParser.boolean(values[0])
            },
            single("history_commit_interval", flag: nil, "DURATION", "Longest time between history commits") {
                config, value throws(SettingError) in
                config.historyCommitInterval = try ValueParser.duration(
                    value, within: .milliseconds(100)...Duration.seconds(3600))
            },
            single("history_retention", flag: nil, "DURATION", "How long readings are kept") {
                config, value throws(SettingError) in
                config.historyRetention = try ValueParser.duration(
                    value, within: .seconds(3600)...Duration.seconds(3650 * 86400))
            },
            single("history_max_bytes", flag: nil, "BYTES", "Most bytes the stored readings may take") {
                config, value throws(SettingError) in
                config.historyMaxBytes = Int64(try ValueParser.integer(value, within: (1 << 20)...(1 << 40)))
            },
            single("max_clients", flag: "max-clients", "N", "Most clients served at once") {
                config, value throws(SettingError) in
                config.maxClients = try ValueParser.integer(value, within: 1...4096)
            },
            single("max_clients_per_user", flag: nil, "N", "Most clients one user may have at once") {
                config, value throws(SettingError) in
                config.maxClientsPerUser = try ValueParser.integer(value, within: 1...4096)
            },
            single("max_pending_requests_per_user", flag: nil, "N", "Most requests of one user answered at once") {
                config, value throws(SettingError) in
                config.maxPendingRequestsPerUser = try ValueParser.integer(value, within: 1...4096)
            },
            single("max_line_length", flag: nil, "BYTES", "Longest request line") {
                config, value throws(SettingError) in
                config.maxLineLength = try ValueParser.integer(value, within: 1024...(16 << 20))
            },
            single("client_queue_bytes", flag: nil, "BYTES", "Output queued per client before it is dropped") {
                config, value throws(SettingError) in
                config.clientQueueBytes = try ValueParser.integer(value, within: (64 << 10)...(64 << 20))
            },
            single("max_queued_bytes_total", flag: nil, "BYTES", "Output queued for all clients together") {
                config, value throws(SettingError) in
                config.maxQueuedBytesTotal = try ValueParser.integer(value, within: (64 << 10)...(1 << 30))
            },
            optional(
                "http_listen", flag: "http", "ADDRESS:PORT",
                "Serve the page, /metrics and /api over HTTP, e.g. 127.0.0.1:9266 (default off)"
            ) { config, value throws(SettingError) in
                guard let value else { return config.httpListen = nil }  // off, the default
                guard let address = ListenAddress(value) else {
                    throw SettingError(
                        "expected a numeric address and a port such as 127.0.0.1:9266 or [::1]:9266, got '\(value)'")
                }
                config.httpListen = address
            },
            single("http_max_connections", flag: nil, "N", "Most HTTP connections open at once") {
                config, value throws(SettingError) in
                config.httpMaxConnections = try ValueParser.integer(value, within: 1...4096)
            },
            single("scan_timeout", flag: "scan-timeout", "SECONDS", "Default scan duration") {
                config, value throws(SettingError) in
                config.scanTimeout = try ValueParser.duration(value, within: .seconds(1)...Duration.seconds(300))
            },
            single("max_connecting", flag: nil, "N", "Connection attempts under way at once") {
                config, value throws(SettingError) in
                config.maxConnecting = try ValueParser.integer(value, within: 1...64)
            },
            single("max_connections", flag: nil, "N", "Links held at once per adapter") {
                config, value throws(SettingError) in
                config.maxConnections = try ValueParser.integer(value, within: 1...1000)
            },
            single("max_devices", flag: nil, "N", "Devices tracked; the one unseen longest is forgotten first") {
                config, value throws(SettingError) in
                config.maxDevices = try ValueParser.integer(value, within: 16...100_000)
            },
            ConfigurationSetting(
                key: "power_on_adapter", flag: "power-on-adapter", kind: .boolean, valueName: "",
                help: "Switch the adapter on when it is off"
            ) { config, values throws(SettingError) in
                config.powerOnAdapter = try ValueParser.boolean(values[0])
            },
            single(
                "scan_watchdog", flag: nil, "DURATION",
                "Discovery hearing nothing this long starts the recovery ladder (0 or off: never)"
            ) { config, value throws(SettingError) in
                config.scanWatchdog =
                    ["0", "off", "no"].contains(value.lowercased())
                    ? nil : try ValueParser.duration(value, within: .seconds(1)...Duration.seconds(86400))
            },
            ConfigurationSetting(
                key: "adapter_reset", flag: nil, kind: .boolean, valueName: "",
                help: "Let the recovery ladder reset the controller (HCI; needs CAP_NET_ADMIN)"
            ) { config, values throws(SettingError) in
                config.adapterReset = try ValueParser.boolean(values[0])
            },
        ] + mqtt + advertisements

    static func named(_ key: String) -> ConfigurationSetting? {
        all.first { $0.key == key }
    }

    static func single(
        _ key: String,
        flag: String?,
        _ valueName: String,
        _ help: String,
        _ apply: @escaping @Sendable (inout DaemonConfiguration, String) throws(SettingError) -> Void
    ) -> ConfigurationSetting {
        ConfigurationSetting(key: key, flag: flag, kind: .single, valueName: valueName, help: help) {
            config, values throws(SettingError) in
            try apply(&config, values[0])
        }
    }
    /// A setting that takes one value or none (the default).
    static func optional(
        _ key: String,
        flag: String?,
        _ valueName: String,
        _ help: String,
        _ apply: @escaping @Sendable (inout DaemonConfiguration, String?) throws(SettingError) -> Void
    ) -> ConfigurationSetting {
        ConfigurationSetting(key: key, flag: flag, kind: .optional, valueName: valueName, help: help) {
            config, values throws(SettingError) in try apply(&config, values.first)
        }
    }

}

/// Parsers for setting values; each throws a message naming what was expected.
enum ValueParser {
    static func integer(_ text: String, within range: ClosedRange<Int>) throws(SettingError) -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw SettingError("expected a whole number from \(range.lowerBound) to \(range.upperBound), got '\(text)'")
        }
        return value
    }

    /// Seconds with an optional unit: `2`, `1.5s`, `500ms`, `2m`, `24h`, `30d` (``DurationText``).
    static func duration(_ text: String, within range: ClosedRange<Duration>) throws(SettingError) -> Duration {
        guard DurationText.seconds(text) != nil else {
            throw SettingError("expected a duration such as 10, 2.5s or 500ms, got '\(text)'")
        }
        // A number too large for a Duration (`1e300d`) is out of range, not a trap.
        guard let duration = DurationText.parse(text), range.contains(duration) else {
            throw SettingError("'\(text)' is out of range (\(range.lowerBound) to \(range.upperBound))")
        }
        return duration
    }

    static func boolean(_ text: String) throws(SettingError) -> Bool {
        switch text.lowercased() {
        case "yes", "true", "on", "1": return true
        case "no", "false", "off", "0": return false
        default: throw SettingError("expected yes or no, got '\(text)'")
        }
    }

    static func socketPath(_ text: String) throws(SettingError) -> String {
        guard text.hasPrefix("/") || text.hasPrefix("@") else {
            throw SettingError("the socket path must be absolute (or @abstract), got '\(text)'")
        }
        guard text.utf8.count <= UnixSocket.maxPathLength else {
            throw SettingError("the socket path is longer than \(UnixSocket.maxPathLength) bytes")
        }
        return text
    }

    /// A 16-, 32- or 128-bit UUID, returned as lowercase 128-bit text.
    static func uuid(_ text: String) throws(SettingError) -> String {
        var hex = text.lowercased()
        if hex.hasPrefix("0x") { hex.removeFirst(2) }
        let isHex = { (part: Substring) in part.allSatisfy(\.isHexDigit) }
        switch hex.count {
        case 4, 8:
            if isHex(hex[...]) {
                return String(repeating: "0", count: 8 - hex.count) + hex + "-0000-1000-8000-00805f9b34fb"
            }
        case 36:
            let groups = hex.split(separator: "-", omittingEmptySubsequences: false)
            if groups.map(\.count) == [8, 4, 4, 4, 12], groups.allSatisfy(isHex) { return hex }
        default:
            break
        }
        throw SettingError("not a UUID: '\(text)' (use 180a, 0x2a6e or 8-4-4-4-12 hex)")
    }
}
