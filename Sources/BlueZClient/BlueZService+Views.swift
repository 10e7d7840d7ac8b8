public import DBusCore

extension BlueZService {
    /// Every adapter, sorted by path.
    public func adapters() -> [Adapter] {
        tree.paths(with: BlueZ.Interface.adapter).compactMap { adapter($0) }
    }

    /// The adapter at `path`.
    public func adapter(_ path: ObjectPath) -> Adapter? { view(path, BlueZ.Interface.adapter, Adapter.init) }

    /// Devices known on `adapter` (all adapters when nil).
    public func devices(on adapter: ObjectPath? = nil) -> [Device] {
        tree.paths(with: BlueZ.Interface.device, under: adapter).compactMap { device($0) }
    }

    /// The device at `path`.
    public func device(_ path: ObjectPath) -> Device? { view(path, BlueZ.Interface.device, Device.init) }

    /// The GATT services exported under a device.
    public func services(of device: ObjectPath) -> [GattService] {
        tree.paths(with: BlueZ.Interface.gattService, under: device).compactMap {
            view($0, BlueZ.Interface.gattService, GattService.init)
        }
    }

    /// The characteristics of a service.
    public func characteristics(of service: ObjectPath) -> [GattCharacteristic] {
        tree.paths(with: BlueZ.Interface.gattCharacteristic, under: service).compactMap { characteristic($0) }
    }

    /// The characteristic at `path`.
    public func characteristic(_ path: ObjectPath) -> GattCharacteristic? {
        view(path, BlueZ.Interface.gattCharacteristic, GattCharacteristic.init)
    }

    /// The descriptors of a characteristic.
    public func descriptors(of characteristic: ObjectPath) -> [GattDescriptor] {
        tree.paths(with: BlueZ.Interface.gattDescriptor, under: characteristic).compactMap {
            view($0, BlueZ.Interface.gattDescriptor, GattDescriptor.init)
        }
    }

    private func view<T>(_ path: ObjectPath, _ interface: String, _ make: (ObjectPath, inout PropertyReader) -> T) -> T?
    {
        var problems: [String] = []
        let result = tree.view(path, interface, problems: &problems, make)
        note(problems: problems)
        return result
    }
}
