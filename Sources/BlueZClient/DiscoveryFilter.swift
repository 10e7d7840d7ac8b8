import DBusCore

/// This client's discovery filter (`SetDiscoveryFilter`); BlueZ merges every client's.
public struct DiscoveryFilter: Sendable, Equatable {
    /// `le`, `bredr` or `auto`.
    public var transport: String
    /// Whether every advertisement is reported (`PropertiesChanged` each time), not only changes.
    public var duplicateData: Bool

    /// A filter; the defaults suit a central reading LE sensors.
    public init(transport: String = "le", duplicateData: Bool = true) {
        self.transport = transport
        self.duplicateData = duplicateData
    }

    var properties: [(String, DBusValue)] {
        [("Transport", .string(transport)), ("DuplicateData", .boolean(duplicateData))]
    }
}
