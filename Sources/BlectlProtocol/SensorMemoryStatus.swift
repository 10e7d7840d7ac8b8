public import SensorModel

/// One sensor's memory downloads and clock in `status` (docs/sensor-memory.md).
public struct SensorMemoryStatus: Codable, Equatable, Sendable {
    /// The sensor's address.
    public var address: BluetoothAddress
    /// Downloads started since blectld started.
    public var downloads: Int
    /// When the last download ended.
    public var lastDownload: Timestamp?
    /// How it ended: `finished`, `disconnected`, `stalled`, or why it failed.
    public var lastResult: String?
    /// Records the last download stored as readings.
    public var stored: Int
    /// Records it dropped: their minute had a reading already.
    public var duplicates: Int
    /// Records it rejected: impossible times or values, erased flash.
    public var rejected: Int
    /// How long it held the sensor, in seconds (connecting included).
    public var connectedSeconds: Double?
    /// The sensor's clock minus the gateway's, in seconds, as last read.
    public var clockDriftSeconds: Int64?
    /// When the clock was last set.
    public var clockSet: Timestamp?
    /// What the last clock setting did: `set`, `refused: …`, `gateway-unsynchronized`.
    public var clockResult: String?

    /// A sensor's entry.
    public init(address: BluetoothAddress) {
        self.address = address
        downloads = 0
        stored = 0
        duplicates = 0
        rejected = 0
    }

    private enum CodingKeys: String, CodingKey {
        case address, downloads, stored, duplicates, rejected
        case lastDownload = "last_download"
        case lastResult = "last_result"
        case connectedSeconds = "connected_seconds"
        case clockDriftSeconds = "clock_drift_seconds"
        case clockSet = "clock_set"
        case clockResult = "clock_result"
    }
}
