public import BlectlProtocol
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

    /// Scans as ``scan(for:)`` does, and returns what each adapter heard of each device at
    /// the scan's end: the adapters (interface names) and their RSSI, by address. The
    /// default scans and knows no adapters.
    func scanHearings(for duration: Duration) async throws -> [BluetoothAddress: [AdapterHearing]]

    /// Reads the connected thermometer at `address` now.
    ///
    /// The value reaches the hub through ``Hub/apply(_:)`` like any other reading (or is
    /// not repeated when newer values arrived while the read ran). Should honour task
    /// cancellation; the hub stops waiting at the request's deadline either way.
    func readNow(address: BluetoothAddress) async throws
}

extension CentralControl {
    /// Scans, knowing no adapters.
    public func scanHearings(for duration: Duration) async throws -> [BluetoothAddress: [AdapterHearing]] {
        try await scan(for: duration)
        return [:]
    }
}
