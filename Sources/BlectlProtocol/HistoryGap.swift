public import SensorModel

/// A time range in which the history holds no readings where there should be some, and why.
public struct HistoryGap: Codable, Equatable, Hashable, Sendable {
    /// The device that was not heard; nil when no device could be (the gateway was stopped,
    /// its adapter down).
    public var address: BluetoothAddress?
    /// The last moment something was known to work (a reading, the daemon's stop).
    public var from: Timestamp
    /// When readings could come again.
    public var until: Timestamp
    /// Why nothing was recorded.
    public var reason: GapReason

    /// Creates a gap.
    public init(address: BluetoothAddress?, from: Timestamp, until: Timestamp, reason: GapReason) {
        self.address = address
        self.from = from
        self.until = until
        self.reason = reason
    }
}

/// Why a ``HistoryGap`` has no readings.
public enum GapReason: String, Codable, Sendable, CaseIterable {
    /// blectld was not running (stopped, crashed, the machine off).
    case gatewayStopped = "gateway stopped"
    /// The adapter was off, gone or without bluetoothd.
    case adapterDown = "adapter down"
    /// The device sent nothing that was received, while everything else worked.
    case notHeard = "not heard"
}
