import Central
import HistoryStore
import HTTPOutput
import MQTTOutput
import ReadingHub
import SocketOutput
import UnixSupport

/// One of blectld's settings: its file key, its command-line flag, and how to apply a value.
///
/// The file and the command line share one table, so both accept the same values and
/// report the same errors. It is composed of the modules' tables (each declares its
/// settings beside the configuration holding their defaults) and the daemon's own.
typealias ConfigurationSetting = Setting<DaemonConfiguration>

extension Setting<DaemonConfiguration> {
    /// Every setting, in the order help lists them.
    static let all: [ConfigurationSetting] =
        SocketServer.Configuration.settings.map { $0.lifted(into: \.socket) } + central
        + ThermometerConfiguration.settings.map { $0.lifted(into: \.thermometers) } + storage
        + HistoryStore.Configuration.settings.map { $0.lifted(into: \.historyStore) }
        + HTTPOutput.Settings.settings.map { $0.lifted(into: \.http) }
        + Hub.Limits.settings.map { $0.lifted(into: \.hub) } + adapterPower
        + MQTTOutput.Settings.settings.map { $0.lifted(into: \.mqtt) } + advertisements
        + SensorMemorySettings.settings.map { $0.lifted(into: \.sensorMemory) }

    /// The setting of a file key.
    static func named(_ key: String) -> ConfigurationSetting? {
        all.first { $0.key == key }
    }

    /// The adapter and the log.
    private static let central: [ConfigurationSetting] = [
        .optional(
            "adapter", flag: "adapter", "NAME", "One Bluetooth adapter: hci0, its address, or auto (not with adapters)",
            at: \.adapter
        ) { text throws(SettingError) in
            guard AdapterSelection(text) != nil else {
                throw SettingError("not an adapter (hciN, an address, or auto): \(text)")
            }
            return text
        },
        .optional(
            "adapters", flag: "adapters", "LIST",
            "Bluetooth adapters: auto (every one with the central role), all, or addresses (hciN resolved at start)",
            at: \.adapters
        ) { text throws(SettingError) in
            do {
                return try AdapterSet(parsing: text)
            } catch {
                throw SettingError("\(error)")
            }
        },
        .value("log_level", flag: "log-level", "LEVEL", "Log level: \(LogLevel.names)", at: \.logLevel) {
            text throws(SettingError) in
            guard let level = LogLevel(name: text) else {
                throw SettingError("unknown log level '\(text)' (use \(LogLevel.names))")
            }
            return level
        },
    ]

    /// The thermometers' extra service UUIDs, where the history is kept, and whether.
    private static let storage: [ConfigurationSetting] = [
        .list(
            "service_uuids", flag: "service-uuid", "UUID", "Extra thermometer service UUID (repeatable)",
            at: \.serviceUUIDs
        ) { values throws(SettingError) in
            var uuids: [String] = []
            for value in values { uuids.append(try ValueParser.uuid(value)) }
            return uuids
        },
        .optional(
            "state_dir", flag: "state-dir", "DIR",
            "Directory of the history database (default \(DaemonConfiguration.defaultStateDirectory); "
                + "a temporary one with --mock)", at: \.stateDirectory
        ) { text throws(SettingError) in
            guard text.hasPrefix("/") else {
                throw SettingError("the state directory must be absolute, got '\(text)'")
            }
            return text
        },
        .boolean("history", "Keep every reading in the history database (no: none is kept)", at: \.history),
    ]

    /// Whether the adapter is switched on.
    private static let adapterPower: [ConfigurationSetting] = [
        .boolean(
            "power_on_adapter", flag: "power-on-adapter", "Switch the adapter on when it is off", at: \.powerOnAdapter)
    ]
}

extension ValueParser {
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
