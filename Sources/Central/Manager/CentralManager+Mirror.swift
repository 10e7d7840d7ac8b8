public import BlueZClient
public import DBusCore

/// Synchronous reads of the BlueZ mirror.
///
/// The client runs on the same executor as the central, so its state can be
/// read without a hop; `assumeIsolated` checks that at run time.
extension CentralManager {
    func mirror<T: Sendable>(_ body: (isolated BlueZService) -> T) -> T { client.assumeIsolated(body) }

    /// The device object at `path`, as BlueZ sees it now.
    public func device(_ path: ObjectPath) -> Device? { mirror { $0.device(path) } }

    /// The devices on our adapter.
    public func knownDevices() -> [Device] {
        let adapter = adapterPath
        return mirror { $0.devices(on: adapter) }
    }
}
