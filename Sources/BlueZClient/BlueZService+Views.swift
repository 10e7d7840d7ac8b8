import DBusCore

extension BlueZService {
    /// Every adapter, sorted by path (BlueZ puts them directly below `/org/bluez`).
    public func adapters() -> [Adapter] {
        tree.paths(with: BlueZ.Interface.adapter, under: BlueZ.root).compactMap {
            view($0, BlueZ.Interface.adapter, Adapter.init)
        }
    }

    /// The adapter at `path`.
    public func adapter(_ path: BlueZPath) -> Adapter? {
        view(path.objectPath, BlueZ.Interface.adapter, Adapter.init)
    }

    /// Devices known on `adapter` (all adapters when nil).
    public func devices(on adapter: BlueZPath? = nil) -> [Device] {
        tree.paths(with: BlueZ.Interface.device, under: adapter?.objectPath).compactMap {
            view($0, BlueZ.Interface.device, Device.init)
        }
    }

    /// The device at `path`.
    public func device(_ path: BlueZPath) -> Device? { view(path.objectPath, BlueZ.Interface.device, Device.init) }

    /// The `Name` of the device at `path`, without building its view (the advertisement
    /// monitor asks for every advertisement of a device it does not know yet).
    public func deviceName(_ path: BlueZPath) -> String? {
        try? tree.properties(path.objectPath, BlueZ.Interface.device)?["Name"]?.decode(String.self)
    }

    /// The paths of the devices on `adapter` that were heard advertising in the current
    /// discovery (they have an `RSSI`), without building their views.
    public func advertisingDevices(on adapter: BlueZPath) -> [BlueZPath] {
        tree.paths(with: BlueZ.Interface.device, under: adapter.objectPath).compactMap { path in
            tree.properties(path, BlueZ.Interface.device)?["RSSI"] == nil ? nil : BlueZPath(path)
        }
    }

    /// The devices on `adapter` heard in the current discovery, with the `RSSI` each was heard
    /// at, without building their views (a `scan` reply: what each adapter hears).
    public func deviceSignals(on adapter: BlueZPath) -> [(path: BlueZPath, rssi: Int16)] {
        tree.paths(with: BlueZ.Interface.device, under: adapter.objectPath).compactMap { path in
            guard let rssi = try? tree.properties(path, BlueZ.Interface.device)?["RSSI"]?.decode(Int16.self) else {
                return nil
            }
            return (BlueZPath(path), rssi)
        }
    }

    /// The paths of the connected devices on `adapter`, without building their views.
    public func connectedDevices(on adapter: BlueZPath) -> [BlueZPath] {
        tree.paths(with: BlueZ.Interface.device, under: adapter.objectPath).compactMap { path in
            tree.properties(path, BlueZ.Interface.device)?["Connected"] == .boolean(true) ? BlueZPath(path) : nil
        }
    }

    /// Whether the device at `path` is connected (cheaper than ``device(_:)``).
    public func isConnected(_ path: BlueZPath) -> Bool {
        tree.properties(path.objectPath, BlueZ.Interface.device)?["Connected"] == .boolean(true)
    }

    /// The GATT services exported under a device.
    public func services(of device: BlueZPath) -> [GattService] {
        tree.paths(with: BlueZ.Interface.gattService, under: device.objectPath).compactMap {
            view($0, BlueZ.Interface.gattService, GattService.init)
        }
    }

    /// The characteristics of a service.
    public func characteristics(of service: BlueZPath) -> [GattCharacteristic] {
        tree.paths(with: BlueZ.Interface.gattCharacteristic, under: service.objectPath).compactMap {
            view($0, BlueZ.Interface.gattCharacteristic, GattCharacteristic.init)
        }
    }

    /// The characteristic at `path`.
    public func characteristic(_ path: BlueZPath) -> GattCharacteristic? {
        view(path.objectPath, BlueZ.Interface.gattCharacteristic, GattCharacteristic.init)
    }

    /// The descriptors of a characteristic.
    public func descriptors(of characteristic: BlueZPath) -> [GattDescriptor] {
        tree.paths(with: BlueZ.Interface.gattDescriptor, under: characteristic.objectPath).compactMap {
            view($0, BlueZ.Interface.gattDescriptor, GattDescriptor.init)
        }
    }

    /// Whether BlueZ has an object of `kind` at `path` (cheaper than building its view).
    public func exists(_ path: BlueZPath, _ kind: BlueZObjectKind) -> Bool {
        tree.has(path.objectPath, BlueZ.interface(of: kind))
    }

    /// Whether the device at `path` has its GATT services resolved (cheaper than ``device(_:)``).
    public func servicesResolved(_ path: BlueZPath) -> Bool {
        tree.properties(path.objectPath, BlueZ.Interface.device)?["ServicesResolved"] == .boolean(true)
    }

    private func view<T>(_ path: ObjectPath, _ interface: String, _ make: (ObjectPath, inout PropertyReader) -> T) -> T?
    {
        var problems: [String] = []
        let result = tree.view(path, interface, problems: &problems, make)
        note(problems: problems)
        return result
    }
}
