public import SensorModel
public import UnixSupport

/// When blectld reads the sensors' memory and sets their clocks (`sensor_memory*`,
/// `sensor_clock_sync`); docs/sensor-memory.md, "How blectld uses it".
public struct SensorMemorySettings: Equatable, Sendable {
    /// Whether memory-capable sensors' gaps are filled from their memory (`sensor_memory = auto|off`).
    public var enabled = true
    /// Devices whose own `sensor_memory ADDRESS = auto|off` says otherwise (true: auto).
    public var devices: [BluetoothAddress: Bool] = [:]
    /// A gap in a sensor's readings longer than this is filled (`sensor_memory_after`).
    public var after: Duration = .seconds(600)
    /// At most one download per sensor this often (`sensor_memory_interval`).
    public var interval: Duration = .seconds(3600)
    /// Whether sensors' clocks are set at the first connection and then daily (`sensor_clock_sync = daily|off`).
    public var clockSync = true
    /// Devices whose own `sensor_clock_sync ADDRESS = daily|off` says otherwise (true: daily).
    public var clockSyncDevices: [BluetoothAddress: Bool] = [:]
    /// A download that receives nothing this long ends, its slot released (`sensor_memory_stall`).
    public var stallTimeout: Duration = .seconds(15)
    /// An interrupted download (disconnect, stall) is taken up again this long after, at the
    /// sensor's next reading, whatever ``interval`` says.
    public var retryAfter: Duration = .seconds(60)
    /// How far back a gap is looked for in the history at start (the newest stored reading).
    public var lookback: Duration = .seconds(30 * 86400)
    /// How often a clock is set.
    public var clockInterval: Duration = .seconds(86400)

    /// The defaults.
    public init() {}

    /// Whether the memory of the sensor at `address` is read: its own setting, else `sensor_memory`.
    public func isEnabled(for address: BluetoothAddress) -> Bool { devices[address] ?? enabled }

    /// Whether the clock of the device at `address` is set: its own setting, else `sensor_clock_sync`.
    public func setsClock(of address: BluetoothAddress) -> Bool { clockSyncDevices[address] ?? clockSync }

    /// Whether any sensor's memory may be read: `sensor_memory = auto`, or a device's own `auto`.
    public var isEnabledForAny: Bool { enabled || devices.values.contains(true) }

    /// `auto` (true) or `off` (false), as `sensor_memory` takes them, globally or per device.
    public static func mode(_ text: String) throws(SettingError) -> Bool {
        switch text.lowercased() {
        case "auto": return true
        case "off": return false
        default: throw SettingError("expected auto or off, got '\(text)'")
        }
    }

    /// `daily` (true) or `off` (false), as `sensor_clock_sync` takes them, globally or per device.
    public static func clockMode(_ text: String) throws(SettingError) -> Bool {
        switch text.lowercased() {
        case "daily": return true
        case "off": return false
        default: throw SettingError("expected daily or off, got '\(text)'")
        }
    }

    /// The settings, in the order help lists them; the defaults are the properties'.
    public static let settings: [Setting<Self>] = [
        .value("sensor_memory", "MODE", "Fill gaps from the sensors' own memory: auto or off", at: \.enabled) {
            text throws(SettingError) in try mode(text)
        }.documented(
            "After a gap in a memory-capable sensor's readings, connect to it and store the records of the gap "
                + "(source _memory_, the sensor's times corrected by its clock's drift); a record whose minute "
                + "already has a reading of the device is dropped. _auto_ or _off_; *sensor_memory* _ADDRESS_ "
                + "sets one device's, over this.",
            shown: { $0.enabled ? "auto" : "off" }),
        .duration(
            "sensor_memory_after", "DURATION", "A gap in a sensor's readings longer than this is read from its memory",
            at: \.after, within: .seconds(60)...Duration.seconds(86400)
        ).documented(
            "A gap longer than this is filled (also at start, when the newest stored reading is older), 1 min "
                + "to 1 day."),
        .duration(
            "sensor_memory_interval", "DURATION", "At most one memory download per sensor this often",
            at: \.interval, within: .seconds(10)...Duration.seconds(7 * 86400)
        ).documented(
            "At most one download per sensor this often (battery), 10 s to 7 days; an interrupted download "
                + "resumes a minute later."),
        .duration(
            "sensor_memory_stall", "DURATION", "A memory download that receives nothing this long ends",
            at: \.stallTimeout, within: .seconds(1)...Duration.seconds(600)
        ).documented(
            "A download that receives nothing this long ends and its connection slot is released, 1 s to 10 min."),
        .value(
            "sensor_clock_sync", "MODE",
            "Set sensors' clocks (memory, Current Time Service) at the first connection, then daily: daily or off",
            at: \.clockSync
        ) { text throws(SettingError) in try clockMode(text) }.documented(
            "Set a memory sensor's clock, and that of a GATT thermometer offering the Current Time Service "
                + "(0x1805), at the first connection, then at its first download (or connection) a day or more "
                + "later, and only when this machine's clock is synchronised (adjtimex); a memory sensor heard "
                + "without gaps for a day is visited for its clock alone (no records read). The drift found is "
                + "in *blectl status*. _daily_ or _off_; *sensor_clock_sync* _ADDRESS_ sets one device's, over "
                + "this.",
            shown: { $0.clockSync ? "daily" : "off" }),
    ]

    /// The settings under their heading in the man page and the sample configuration.
    public static let section = SettingSection(
        "Sensors' memory",
        introduction: "Sensors with the pvvx firmware keep their measurements in flash; blectld reads them back to "
            + "fill the gaps in their history (the gateway stopped, the adapter down, the sensor out of range). It "
            + "needs the history (*history = yes*). Details in _sensor-memory.md_.", settings)
}
