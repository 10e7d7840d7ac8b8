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

    /// The connected devices on the adapters GATT connections go through (cheaper than
    /// filtering ``knownDevices()``): the primary; every adapter in use when several are.
    public func connectedDevicePaths() -> [BlueZPath] {
        guard let adapter = adapterPath else { return [] }
        guard ownership != nil else { return mirror { $0.connectedDevices(on: adapter) } }
        return discovery.entries.flatMap { entry in mirror { $0.connectedDevices(on: entry.path) } }
    }

    /// The path BlueZ gives the device with `address` on our adapter, whether or not it
    /// exists; nil when several adapters are in use (it may appear on any).
    public func expectedDevicePath(_ address: BluetoothAddress) -> BlueZPath? {
        ownership == nil ? adapterPath?.device(address) : nil
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
    ///
    /// With several adapters in use: its device object with a link up, else the one on the
    /// adapter that owns it (hears it best) if that adapter holds fewer than
    /// `linksPerAdapter` links, else on the next best (``AdapterOwnership``).
    public func knownDevicePath(_ address: BluetoothAddress, linksPerAdapter: Int = .max) -> BlueZPath? {
        if ownership != nil { return ownedDevicePath(address, linksPerAdapter: linksPerAdapter) }
        guard let adapter = adapterPath else { return knownDevices().first { $0.address == address }?.path }
        guard let path = adapter.device(address), hasDevice(path) else { return nil }
        return path
    }
}
