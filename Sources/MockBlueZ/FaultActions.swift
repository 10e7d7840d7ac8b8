import DBusCore

/// Faults that act on the running bluetoothd (the rest are armed in the world).
enum FaultActions {
    static func powerFault(_ daemon: isolated Bluetoothd, _ adapter: String, on: Bool) throws {
        guard daemon.adapters[adapter] != nil else { throw MockError.unknownAdapter(adapter) }
        if on {
            AdapterControl.powerOn(daemon, adapter, announcePowered: true)
        } else {
            AdapterControl.powerOff(daemon, adapter, announcePowered: true)
        }
    }

    /// The controller goes silent until `cure` (or a stronger one) comes.
    static func silence(_ daemon: isolated Bluetoothd, _ name: String, cure: MockSilenceCure) throws {
        guard daemon.adapters[name] != nil else { throw MockError.unknownAdapter(name) }
        daemon.world.withState { $0.silentControllers[name] = cure }
    }

    /// Whether the controller of adapter `name` hears nothing.
    static func isSilent(_ daemon: isolated Bluetoothd, _ name: String) -> Bool {
        daemon.world.withState { $0.silentControllers[name] != nil }
    }

    /// Whether adapter `name` can hear peripheral `index` (it is not out of the adapter's range).
    static func isInRange(_ daemon: isolated Bluetoothd, _ name: String, peripheral index: Int) -> Bool {
        guard let address = daemon.adapters[name]?.spec.address else { return false }
        return daemon.world.withState { world in
            world.ranges.signal(adapter: address, peripheral: world.peripherals[index].spec.address) != .outOfRange
        }
    }

    /// Something of strength `cure` happened to the controller: a silence it cures ends.
    static func cureSilence(_ daemon: isolated Bluetoothd, _ name: String, by cure: MockSilenceCure) {
        daemon.world.withState { world in
            guard let needed = world.silentControllers[name], needed <= cure else { return }
            world.silentControllers[name] = nil
        }
    }

    /// HCI down and up below bluetoothd: the silence ends; bluetoothd sees the controller
    /// power off (links lost, `Powered=false`) and, once it is up again, on.
    static func resetController(_ daemon: isolated Bluetoothd, _ name: String) throws {
        guard daemon.adapters[name] != nil else { throw MockError.unknownAdapter(name) }
        cureSilence(daemon, name, by: .controllerReset)
        AdapterControl.powerOff(daemon, name, announcePowered: true)
        daemon.schedule(after: daemon.timings.autoEnable) { daemon in
            AdapterControl.powerOn(daemon, name, announcePowered: true)
        }
    }

    static func removeAdapter(_ daemon: isolated Bluetoothd, _ name: String) throws {
        guard daemon.adapters[name] != nil else { throw MockError.unknownAdapter(name) }
        AdapterControl.removeAdapterObjects(daemon, name)
    }

    /// A controller appears as `name`, with `address` (else the one `name` had, else one
    /// from its index): the address is its identity, so two present adapters never share one
    /// unless the scenario asks for that bad input.
    static func addAdapter(_ daemon: isolated Bluetoothd, _ name: String, address: String?) throws {
        guard daemon.adapters[name] == nil else { throw MockError.adapterExists("\(name) is already present") }
        var spec = try daemon.adapterSpecs[name] ?? newAdapterSpec(name)
        if let address {
            guard MockAdapterSpec.isAddress(address) else { throw MockError.invalidAddress(address) }
            spec.address = address.uppercased()
        }
        if !daemon.allowsDuplicateAdapterAddresses,
            let twin = daemon.adapters.values.first(where: { $0.spec.address == spec.address })
        {
            throw MockError.adapterExists("\(twin.spec.name) has the address \(spec.address)")
        }
        daemon.adapterSpecs[name] = spec
        AdapterControl.addAdapterObjects(daemon, name)
        daemon.schedule(after: daemon.timings.autoEnable) { daemon in AdapterControl.autoEnable(daemon, name) }
    }

    /// A controller bluetoothd never saw: `hciN` at the address of index N.
    private static func newAdapterSpec(_ name: String) throws -> MockAdapterSpec {
        guard name.hasPrefix("hci"), let index = Int(name.dropFirst(3)), index >= 0 else {
            throw MockError.unknownAdapter(name)
        }
        return MockAdapterSpec(index: index)
    }

    /// The peripheral drops every link it has (on `adapter`, or all).
    static func remoteDisconnect(_ daemon: isolated Bluetoothd, address: String, adapter: String?) throws {
        let paths = daemon.devices.values.filter {
            $0.address == address.uppercased() && $0.link != .down && (adapter == nil || $0.adapterName == adapter)
        }.map(\.path).sorted()
        guard !paths.isEmpty else {
            throw MockError(name: "org.blectl.Mock.Error.NotConnected", message: "\(address) has no link up")
        }
        for path in paths { DeviceLinks.linkLost(daemon, path, dropNotifySessions: false) }
    }

    /// The peripheral's GATT application goes away and registers again at new handles.
    static func gattRestart(_ daemon: isolated Bluetoothd, peripheral index: Int) {
        let base = daemon.world.withState { world -> UInt16 in
            var restarted = world.peripherals[index]
            restarted.applicationUp = true
            return restarted.database.endHandle
        }
        daemon.world.withState { $0.peripherals[index].applicationUp = false }
        // The app's own StartNotify state dies with it.
        for key in daemon.notifiers.keys where key.peripheral == index {
            daemon.tasks.cancel("notify:\(key.peripheral):\(key.uuid)")
        }
        daemon.schedule("gatt-down:\(index)", after: daemon.timings.gattRemoval) { daemon in
            applicationChanged(daemon, index)
        }
        daemon.schedule("gatt-up:\(index)", after: daemon.timings.gattRemoval + daemon.timings.gattRestartGap) {
            daemon in
            daemon.world.withState {
                $0.peripherals[index].applicationBase = base
                $0.peripherals[index].applicationUp = true
            }
            applicationChanged(daemon, index)
        }
    }

    /// Service Changed: links that are up and resolved follow the peripheral's database at
    /// once; others re-read it when they next resolve services.
    private static func applicationChanged(_ daemon: isolated Bluetoothd, _ index: Int) {
        let database = daemon.peripheral(index).database
        for path in daemon.devices.keys.sorted() {
            guard let device = daemon.devices[path], device.peripheral == index, let old = device.gatt else { continue }
            guard device.link == .up, device.servicesResolved else {
                daemon.devices[path]?.gattStale = true
                continue
            }
            let gone = old.exportedServices(missingFrom: database)
            let added = database.exportedServices(missingFrom: old)
            // Removed objects go at once; the UUIDs change waits for the idle flush, which
            // comes before the new objects' InterfacesAdded.
            GattServer.removeGattServices(daemon, path, gone)
            daemon.devices[path]?.gatt = database
            if device.uuids != database.serviceUUIDs {
                daemon.devices[path]?.uuids = database.serviceUUIDs
                daemon.change(path, BluetoothdAPI.device, [("UUIDs", .strings(database.serviceUUIDs))])
            }
            GattServer.exportGattServices(daemon, path, added)
        }
    }
}
