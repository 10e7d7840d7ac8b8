public import SensorModel
public import BlueZClient
public import SensorModel

/// Synchronous reads of the BlueZ mirror.
///
/// The client runs on the same executor as the central, so its state can be
/// read without a hop; `assumeIsolated` checks that at run time.
extension CentralManager {
    func mirror<T: Sendable>(_ body: (isolated BlueZService) -> T) -> T { client.assumeIsolated(body) }

    /// The device object at `path`, as BlueZ sees it now.
    ///
    /// Without `mirror`'s capturing closure: discovery views a device for every
    /// advertisement, and `assumeIsolated` with a capturing closure allocates twice a call.
    public func device(_ path: BlueZPath) -> Device? { client.assumeIsolated(passing: path) { $0.device($1) } }

    /// The `Name` of the device at `path`, without building its view.
    public func deviceName(_ path: BlueZPath) -> String? { client.assumeIsolated(passing: path) { $0.deviceName($1) } }

    /// The devices on our adapter.
    public func knownDevices() -> [Device] {
        let adapter = adapterPath
        return mirror { $0.devices(on: adapter) }
    }

    /// Whether BlueZ has a device object at `path` (cheaper than ``device(_:)``).
    public func hasDevice(_ path: BlueZPath) -> Bool {
        mirror { $0.exists(path, .device) }
    }

    /// Whether the device at `path` is connected (cheaper than ``device(_:)``).
    public func isConnected(_ path: BlueZPath) -> Bool {
        mirror { $0.isConnected(path) }
    }

    /// The connected devices on our adapter (cheaper than filtering ``knownDevices()``).
    public func connectedDevicePaths() -> [BlueZPath] {
        guard let adapter = adapterPath else { return [] }
        return mirror { $0.connectedDevices(on: adapter) }
    }

    /// The path BlueZ gives the device with `address` on our adapter, whether or not it exists.
    public func expectedDevicePath(_ address: BluetoothAddress) -> BlueZPath? {
        adapterPath?.device(address)
    }

    /// Marks a peripheral preferred (a thermometer that worked): when the budget of D-Bus
    /// calls awaiting replies is spent, its calls go before the others waiting.
    public func setPreferred(_ peripheral: Peripheral, _ preferred: Bool) {
        let path = peripheral.path
        mirror { $0.setPreferred(path, preferred) }
    }

    /// Whether the device at `path` has its GATT services resolved (cheaper than ``device(_:)``).
    public func servicesResolved(_ path: BlueZPath) -> Bool {
        mirror { $0.servicesResolved(path) }
    }

    /// The path of the device with `address` on our adapter, if BlueZ knows it.
    public func knownDevicePath(_ address: BluetoothAddress) -> BlueZPath? {
        guard let adapter = adapterPath else { return knownDevices().first { $0.address == address }?.path }
        guard let path = adapter.device(address), hasDevice(path) else { return nil }
        return path
    }
}
