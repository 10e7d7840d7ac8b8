public import BlectlProtocol

/// Something that happened on the Bluetooth side, as the central bridge reports it to
/// the ``Hub``. The hub adds sequence numbers and times.
///
/// Addresses are compared case-insensitively and published in upper case.
public enum DaemonEvent: Equatable, Sendable {
    /// The adapter changed state.
    case adapterState(adapter: String, state: AdapterState)
    /// A peripheral was discovered, or its name or RSSI changed.
    case peripheralSeen(address: String, name: String?, rssi: Int?, isThermometer: Bool)
    /// A peripheral went away (BlueZ removed its device object).
    case peripheralLost(address: String)
    /// A thermometer connected and is being read.
    case connected(address: String, name: String?)
    /// A thermometer disconnected; `reason` is for people.
    case disconnected(address: String, reason: String)
    /// A temperature arrived (a notification, or a read the bridge made on its own).
    case reading(address: String, name: String?, sample: TemperatureSample)
    /// A value arrived that could not be decoded as a temperature.
    case readingError(address: String, message: String, raw: [UInt8])
}

/// One decoded temperature value.
public struct TemperatureSample: Equatable, Sendable {
    /// Degrees Celsius.
    public var celsius: Double
    /// The value as the device sent it, e.g. `"112.5 F"` (hex for binary profiles).
    public var raw: String
    /// The unit the device reported in.
    public var unit: TemperatureUnit

    /// Creates a sample.
    public init(celsius: Double, raw: String, unit: TemperatureUnit) {
        self.celsius = celsius
        self.raw = raw
        self.unit = unit
    }
}

/// What the hub needs from the Bluetooth side to answer requests; the central bridge
/// implements it, tests use a fake.
public protocol CentralControl: Sendable {
    /// Scans for `duration`, reporting discoveries through ``Hub/apply(_:)`` as
    /// `.peripheralSeen`, and returns when the scan is over.
    ///
    /// Throws ``BlectlProtocol/ErrorInfo`` (e.g. code `unavailable`) for failures worth
    /// showing as they are; any other error is reported as `unavailable` with its text.
    func scan(for duration: Duration) async throws

    /// Reads the temperature of the connected thermometer at `address` now.
    ///
    /// The hub records the returned sample as a reading (assigning its `seq`) and
    /// broadcasts it, so the bridge must not also report this value through
    /// ``Hub/apply(_:)``. Should honour task cancellation; the hub stops waiting at
    /// the request's deadline either way.
    func readNow(address: String) async throws -> TemperatureSample
}
