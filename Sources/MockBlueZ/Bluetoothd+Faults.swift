import DBusCore

/// Faults that act on the running bluetoothd (the rest are armed in the world).
extension Bluetoothd {
    func powerFault(_ adapter: String, on: Bool) throws {
        guard adapters[adapter] != nil else { throw MockError.unknownAdapter(adapter) }
        if on { powerOn(adapter, announcePowered: true) } else { powerOff(adapter, announcePowered: true) }
    }

    /// The controller goes silent until `cure` (or a stronger one) comes.
    func silence(_ name: String, cure: MockSilenceCure) throws {
        guard adapters[name] != nil else { throw MockError.unknownAdapter(name) }
        world.withState { $0.silentControllers[name] = cure }
    }

    /// Whether the controller of adapter `name` hears nothing.
    func isSilent(_ name: String) -> Bool {
        world.withState { $0.silentControllers[name] != nil }
    }

    /// Something of strength `cure` happened to the controller: a silence it cures ends.
    func cureSilence(_ name: String, by cure: MockSilenceCure) {
        world.withState { world in
            guard let needed = world.silentControllers[name], needed <= cure else { return }
            world.silentControllers[name] = nil
        }
    }

    /// HCI down and up below bluetoothd: the silence ends; bluetoothd sees the controller
    /// power off (links lost, `Powered=false`) and, once it is up again, on.
    func resetController(_ name: String) throws {
        guard adapters[name] != nil else { throw MockError.unknownAdapter(name) }
        cureSilence(name, by: .controllerReset)
        powerOff(name, announcePowered: true)
        schedule(after: timings.autoEnable) { daemon in daemon.powerOn(name, announcePowered: true) }
    }

    func removeAdapter(_ name: String) throws {
        guard adapters[name] != nil else { throw MockError.unknownAdapter(name) }
        removeAdapterObjects(name)
    }

    func addAdapter(_ name: String) throws {
        guard adapters[name] == nil else {
            throw MockError(name: "org.blectl.Mock.Error.AdapterExists", message: "\(name) is already present")
        }
        if adapterSpecs[name] == nil {
            guard name.hasPrefix("hci"), let index = Int(name.dropFirst(3)) else {
                throw MockError.unknownAdapter(name)
            }
            adapterSpecs[name] = MockAdapterSpec(index: index)
        }
        addAdapterObjects(name)
        schedule(after: timings.autoEnable) { daemon in daemon.autoEnable(name) }
    }

    /// The peripheral drops every link it has (on `adapter`, or all).
    func remoteDisconnect(address: String, adapter: String?) throws {
        let paths = devices.values.filter {
            $0.address == address.uppercased() && $0.link != .down && (adapter == nil || $0.adapterName == adapter)
        }.map(\.path).sorted()
        guard !paths.isEmpty else {
            throw MockError(name: "org.blectl.Mock.Error.NotConnected", message: "\(address) has no link up")
        }
        for path in paths { linkLost(path, dropNotifySessions: false) }
    }

    /// The peripheral's GATT application goes away and registers again at new handles.
    func gattRestart(peripheral index: Int) {
        let base = world.withState { world -> UInt16 in
            var running = world.peripherals[index]
            running.applicationUp = true
            return running.database.endHandle
        }
        world.withState { $0.peripherals[index].applicationUp = false }
        // The app's own StartNotify state dies with it.
        for key in notifiers.keys where key.peripheral == index { tasks.cancel("notify:\(key.peripheral):\(key.uuid)") }
        schedule("gatt-down:\(index)", after: timings.gattRemoval) { daemon in daemon.applicationChanged(index) }
        schedule("gatt-up:\(index)", after: timings.gattRemoval + timings.gattRestartGap) { daemon in
            daemon.world.withState {
                $0.peripherals[index].applicationBase = base
                $0.peripherals[index].applicationUp = true
            }
            daemon.applicationChanged(index)
        }
    }

    /// Service Changed: links that are up and resolved follow the peripheral's database at
    /// once; others re-read it when they next resolve services.
    private func applicationChanged(_ index: Int) {
        let database = peripheral(index).database
        for path in devices.keys.sorted() {
            guard let device = devices[path], device.peripheral == index, let old = device.gatt else { continue }
            guard device.link == .up, device.servicesResolved else {
                devices[path]?.gattStale = true
                continue
            }
            let gone = old.exportedServices(missingFrom: database)
            let added = database.exportedServices(missingFrom: old)
            // Removed objects go at once; the UUIDs change waits for the idle flush, which
            // comes before the new objects' InterfacesAdded.
            removeGattServices(path, gone)
            devices[path]?.gatt = database
            if device.uuids != database.serviceUUIDs {
                devices[path]?.uuids = database.serviceUUIDs
                change(path, BluetoothdAPI.device, [("UUIDs", .strings(database.serviceUUIDs))])
            }
            exportGattServices(path, added)
        }
    }
}

/// An error of the mock's own control surface (bad device, bad fault), with a D-Bus name.
public struct MockError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The D-Bus error name, such as `org.blectl.Mock.Error.UnknownDevice`.
    public var name: String
    /// What went wrong.
    public var message: String

    /// Creates an error.
    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    /// The name and the message, as D-Bus tools print an error.
    public var description: String { "\(name): \(message)" }

    static func unknownAdapter(_ name: String) -> MockError {
        MockError(name: "org.blectl.Mock.Error.UnknownAdapter", message: "no adapter \(name)")
    }

    static func unknownDevice(_ address: String) -> MockError {
        MockError(name: "org.blectl.Mock.Error.UnknownDevice", message: "no peripheral \(address)")
    }

    static let notRunning = MockError(name: "org.blectl.Mock.Error.NotRunning", message: "bluetoothd is not running")
}
