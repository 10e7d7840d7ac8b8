public import SensorModel

/// What the hub needs from the Bluetooth side to answer requests; the central bridge
/// implements it, tests use a fake.
public protocol CentralControl: Sendable {
    /// Scans for `duration`, reporting discoveries through ``Hub/apply(_:)`` as
    /// `.peripheralSeen`, and returns when the scan is over.
    ///
    /// Throws ``BlectlProtocol/ErrorInfo`` (e.g. code `unavailable`) for failures worth
    /// showing as they are; any other error is reported as `unavailable` with its text.
    func scan(for duration: Duration) async throws

    /// Reads the connected thermometer at `address` now.
    ///
    /// The value reaches the hub through ``Hub/apply(_:)`` like any other reading (or is
    /// not repeated when newer values arrived while the read ran). Should honour task
    /// cancellation; the hub stops waiting at the request's deadline either way.
    func readNow(address: BluetoothAddress) async throws
}
