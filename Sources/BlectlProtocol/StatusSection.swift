/// A part of `status` that an output or a source contributes, under its own name.
///
/// The type is stored in a ``StatusResult`` with ``StatusResult/setSection(_:)`` and read
/// back with ``StatusResult/section(_:)``; on the wire it is the value of the key
/// ``sectionName``. Clients that do not know a section show it generically (`blectl
/// status`, `/metrics`), so adding one needs no change outside the output that adds it.
public protocol StatusSection: Codable, Sendable {
    /// The section's key in `status`: lower case, words joined by `_` (`scan_watchdog`).
    static var sectionName: String { get }
}

/// An entry of a section that is a list (`adapters`, `calibration`, `sensor_memory`): an
/// array of these is that section.
public protocol StatusSectionRow: Codable, Sendable {
    /// The key of the list this is an entry of.
    static var sectionName: String { get }
}

extension Array: StatusSection where Element: StatusSectionRow {
    /// The list's key: its entries'.
    public static var sectionName: String { Element.sectionName }
}

extension HistoryStatus: StatusSection {
    /// `history`.
    public static let sectionName = "history"
}

extension MQTTStatus: StatusSection {
    /// `mqtt`.
    public static let sectionName = "mqtt"
}

extension SocketStatus: StatusSection {
    /// `socket`.
    public static let sectionName = "socket"
}

extension AdvertisementStatus: StatusSection {
    /// `advertisements`.
    public static let sectionName = "advertisements"
}

extension ScanWatchdogStatus: StatusSection {
    /// `scan_watchdog`.
    public static let sectionName = "scan_watchdog"
}

extension SensorMemoryStatus: StatusSectionRow {
    /// `sensor_memory`: the memory-capable sensors' downloads and clocks.
    public static let sectionName = "sensor_memory"
}

extension CalibrationOffset: StatusSectionRow {
    /// `calibration`: the offsets in force, by address and quantity.
    public static let sectionName = "calibration"
}

extension AdapterStatus: StatusSectionRow {
    /// `adapters`: the adapters in use, in the order of the setting.
    public static let sectionName = "adapters"
}

/// `missing_adapters`: the adapters configured by address or name that are not present
/// (absent when none is); on the wire a plain array of them.
public struct MissingAdapters: StatusSection, Equatable {
    /// `missing_adapters`.
    public static let sectionName = "missing_adapters"

    /// Each one as configured: an address, or an `hciN` not resolved yet.
    public var adapters: [String]

    /// Creates the section.
    public init(_ adapters: [String]) {
        self.adapters = adapters
    }

    /// Decodes the plain array.
    public init(from decoder: any Decoder) throws {
        adapters = try [String](from: decoder)
    }

    /// Encodes the plain array.
    public func encode(to encoder: any Encoder) throws {
        try adapters.encode(to: encoder)
    }
}
