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
    /// Every setting, in the order help, the man page and the sample configuration list them.
    static let all: [ConfigurationSetting] = sections.flatMap(\.settings)

    /// The settings under the headings of the man page and the sample configuration.
    static let sections: [SettingSection<DaemonConfiguration>] = [
        SettingSection(
            "The socket and its clients",
            SocketServer.Configuration.settings.map { $0.lifted(into: \.socket) } + [logLevel]),
        SettingSection(
            "Bluetooth and the thermometers",
            adapters + ThermometerConfiguration.settings.map { $0.lifted(into: \.thermometers) }
                + Hub.Limits.settings.map { $0.lifted(into: \.hub) } + serviceUUIDs),
        AdvertisementSettings.sensorSection.lifted(into: \.advertisements),
        AdvertisementSettings.hostCPUSection.lifted(into: \.advertisements),
        SensorMemorySettings.section.lifted(into: \.sensorMemory),
        SettingSection(
            "History", history + HistoryStore.Configuration.settings.map { $0.lifted(into: \.historyStore) }),
        HTTPOutput.Settings.section.lifted(into: \.http),
        MQTTOutput.Settings.section.lifted(into: \.mqtt),
    ]

    /// The setting of a file key.
    static func named(_ key: String) -> ConfigurationSetting? {
        all.first { $0.key == key }
    }

    /// The log.
    private static let logLevel = ConfigurationSetting.value(
        "log_level", flag: "log-level", "LEVEL", "Log level: \(LogLevel.names)", at: \.logLevel
    ) { text throws(SettingError) in
        guard let level = LogLevel(name: text) else {
            throw SettingError("unknown log level '\(text)' (use \(LogLevel.names))")
        }
        return level
    }.documented(
        "_emerg_, _alert_, _crit_, _err_, _warning_, _notice_, _info_ or _debug_; SIGHUP applies a changed level "
            + "at once.", shown: { $0.logLevel.name })

    /// The adapters, and whether they are switched on.
    private static let adapters: [ConfigurationSetting] = [
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
        }.documented(
            "The Bluetooth adapters blectld scans on. _auto_ (the default, also when empty): every adapter that "
                + "can act as a central, and those that appear later (plugged in, or renumbered by a USB reset). "
                + "_all_: every adapter BlueZ lists, whatever roles it announces. A list: those adapters, by "
                + "address (their identity, kept when a USB reset renumbers _hci1_ to _hci2_); _hciN_ is accepted "
                + "and resolved to the address it has at start. Each adapter scans with its own discovery session "
                + "and scan watchdog; a sensor heard by several is read once per measurement. GATT thermometers "
                + "connect through the first powered adapter. A listed adapter that is absent is named in "
                + "*blectl status*; blectld runs with the others."),
        .optional(
            "adapter", flag: "adapter", "NAME", "One Bluetooth adapter: hci0, its address, or auto (not with adapters)",
            at: \.adapter
        ) { text throws(SettingError) in
            guard AdapterSelection(text) != nil else {
                throw SettingError("not an adapter (hciN, an address, or auto): \(text)")
            }
            return text
        }.documented(
            "One Bluetooth adapter, the older form: _hci0_, its address (_DC:A6:32:00:00:01_), or _auto_, the "
                + "first powered adapter that can act as a central. _adapter = hci1_ is _adapters = hci1_. Giving "
                + "both *adapter* and *adapters* (in the file, on the command line, or one in each) is a "
                + "configuration error (exit 78). Empty (the default): *adapters* decides."),
        .boolean(
            "power_on_adapter", flag: "power-on-adapter", "Switch the adapter on when it is off", at: \.powerOnAdapter
        ).documented("Switch the adapter on when it is off, rather than wait for someone else to."),
    ]

    /// The thermometers' extra service UUIDs.
    private static let serviceUUIDs: [ConfigurationSetting] = [
        .list(
            "service_uuids", flag: "service-uuid", "UUID", "Extra thermometer service UUID (repeatable)",
            at: \.serviceUUIDs
        ) { values throws(SettingError) in
            var uuids: [String] = []
            for value in values { uuids.append(try ValueParser.uuid(value)) }
            return uuids
        }.documented(
            "Extra thermometer service UUIDs (16-bit such as _181a_, 32-bit, or 128-bit). The Pi cputemp "
                + "spellings _00000001-710e-4a5b-8d75-3e5b444bc3cf_ and _...-3e5b444b3c3f_ are built in. Default "
                + "none.", shown: { $0.serviceUUIDs.joined(separator: ", ") })
    ]

    /// Whether the history is kept, and where.
    private static let history: [ConfigurationSetting] = [
        .boolean("history", "Keep every reading in the history database (no: none is kept)", at: \.history).documented(
            "Keep the durable history (SQLite; _history.md_). With _no_, no database is opened, the _history_ "
                + "request answers _unavailable_, and *mqtt_url* is refused (its backlog lives in the history). "
                + "*blectl status* shows the database, its size, and why it is degraded when the disk cannot be "
                + "written (readings then wait in memory and live readings are unaffected)."),
        .optional(
            "state_dir", flag: "state-dir", "DIR",
            "Directory of the history database (default \(DaemonConfiguration.defaultStateDirectory); "
                + "a temporary one with --mock)", at: \.stateDirectory
        ) { text throws(SettingError) in
            guard text.hasPrefix("/") else {
                throw SettingError("the state directory must be absolute, got '\(text)'")
            }
            return text
        }.documented(
            "Where the history database (_history.sqlite3_) lives, and the MQTT output's _mqtt.position_; "
                + "absolute. Empty means _\(DaemonConfiguration.defaultStateDirectory)_ (the systemd unit's "
                + "*StateDirectory=*), or a temporary directory under *--mock*."),
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
