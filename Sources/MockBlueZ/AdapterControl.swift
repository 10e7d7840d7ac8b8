import DBusCore

/// One adapter's state.
struct MockAdapter: Sendable {
    let spec: MockAdapterSpec
    let path: ObjectPath
    var powered = false
    var discovering = false
    var clients = DiscoveryClients()
    /// Devices reported in the current discovery, most recent first (`discovery_found`).
    var found = FoundDevices()
    /// When each peripheral advertises next, kept between scans: peripherals go on
    /// advertising while nobody scans, so a new scan hears each at its own phase.
    var advertisingSchedule: [ContinuousClock.Instant] = []
    /// Advertising reports the controller heard, per peripheral (filtered out or not): a
    /// test waits for every peripheral to be heard before saying one was not reported.
    var reportsHeard: [Int] = []
    /// Clients' advertisement monitors (`RegisterMonitor`, with `--experimental`).
    var monitorApps: [MonitorApp] = []

    /// Whether the controller listens to advertisements: discovery, or passive scanning
    /// for registered monitors.
    var listening: Bool { powered && (discovering || !monitorApps.isEmpty) }

    /// The reports of peripheral `index` counted so far.
    func reportsHeard(_ index: Int) -> Int { index < reportsHeard.count ? reportsHeard[index] : 0 }

    /// Counts a report of peripheral `index`.
    mutating func heard(_ index: Int) {
        if reportsHeard.count <= index { reportsHeard += repeatElement(0, count: index + 1 - reportsHeard.count) }
        reportsHeard[index] += 1
    }
}

/// Adapters: their objects with the managers bluetoothd registers, AutoEnable, power on and
/// off, and removal.
enum AdapterControl {
    static func adapterPath(_ name: String) -> ObjectPath { BluetoothdAPI.rootPath.appending(name)! }

    /// `/org/bluez` with the manager interfaces bluetoothd registers there.
    static func exportManagers(_ daemon: isolated Bluetoothd) {
        let accept: @Sendable (isolated Bluetoothd, MethodCall) async throws -> [DBusValue] = { _, _ in [] }
        let unsupported: @Sendable (isolated Bluetoothd, MethodCall) async throws -> [DBusValue] = { _, _ in
            throw BluetoothdError.notSupported
        }
        daemon.export(
            BluetoothdAPI.rootPath,
            [
                ExportedInterface(
                    name: BluetoothdAPI.agentManager,
                    methods: [
                        daemon.method("RegisterAgent", in: "os", accept),
                        daemon.method("UnregisterAgent", in: "o", accept),
                        daemon.method("RequestDefaultAgent", in: "o", accept),
                    ]),
                ExportedInterface(
                    name: BluetoothdAPI.profileManager,
                    methods: [
                        daemon.method("RegisterProfile", in: "osa{sv}", unsupported),
                        daemon.method("UnregisterProfile", in: "o", unsupported),
                    ]),
                ExportedInterface(
                    name: BluetoothdAPI.healthManager,
                    methods: [
                        daemon.method("CreateApplication", in: "a{sv}", out: "o", unsupported),
                        daemon.method("DestroyApplication", in: "o", unsupported),
                    ]),
            ])
    }

    /// Exports an adapter, unpowered, with the devices bluetoothd stored for it.
    static func addAdapterObjects(_ daemon: isolated Bluetoothd, _ name: String) {
        guard let spec = daemon.adapterSpecs[name] else { return }
        let path = Self.adapterPath(name)
        daemon.adapters[name] = MockAdapter(spec: spec, path: path)
        if !daemon.adapterOrder.contains(name) { daemon.adapterOrder.append(name) }
        daemon.export(
            path,
            [
                adapterInterface(daemon, spec), gattManagerInterface(daemon), mediaInterface(daemon),
                networkServerInterface(daemon),
            ])
        if daemon.experimental {
            daemon.export(path, [MonitorManager.advertisementMonitorManagerInterface(daemon, name)])
        }
        let stored = daemon.world.withState { state in
            (state.stored[spec.address] ?? [:]).sorted { $0.key < $1.key }.compactMap { entry in
                state.index(of: entry.key).map { ($0, entry.value) }
            }
        }
        for (index, record) in stored {
            var device = DeviceState(
                adapterName: name, adapterPath: path, peripheral: index, spec: daemon.peripheral(index).spec)
            device.name = record.name
            device.uuids = record.uuids
            device.temporary = false
            daemon.add(device)
            daemon.export(device.path, [DeviceLinks.deviceInterface(daemon, device)])
        }
    }

    /// AutoEnable: the advertising manager appears and the adapter is powered.
    static func autoEnable(_ daemon: isolated Bluetoothd, _ name: String) {
        guard var adapter = daemon.adapters[name], !adapter.powered else { return }
        adapter.powered = true
        daemon.adapters[name] = adapter
        if !daemon.objects({ $0.hasInterface(adapter.path, BluetoothdAPI.advertisingManager) }) {
            daemon.export(adapter.path, [advertisingManagerInterface(daemon)])
        }
        daemon.change(
            adapter.path, BluetoothdAPI.adapter,
            [
                ("Powered", .boolean(true)), ("UUIDs", .strings(PropertyTables.adapterUUIDs)),
                ("Alias", .string(adapter.spec.alias)),
            ])
        DiscoverySessions.listen(daemon, name)
    }

    /// Removes an adapter and everything under it, as when its controller is unplugged (what
    /// bluetoothd stored for its address stays, for when it comes back).
    static func removeAdapterObjects(_ daemon: isolated Bluetoothd, _ name: String) {
        guard let adapter = daemon.adapters[name] else { return }
        daemon.storeDevices(of: name)
        daemon.tasks.cancel(prefix: "scan:\(name)")
        for path in daemon.devicePaths(on: name) { DeviceLinks.removeDevice(daemon, path, announceLinkLoss: false) }
        daemon.unexport(adapter.path)
        daemon.adapters[name] = nil
    }

    /// Powers an adapter off: links drop, notifications stop, then `Powered` and
    /// `Discovering` go false (the order the notes measured). `announcePowered` is false when
    /// `Properties.Set` made the change: the object server announces `Powered` itself.
    static func powerOff(_ daemon: isolated Bluetoothd, _ name: String, announcePowered: Bool) {
        guard var adapter = daemon.adapters[name], adapter.powered else { return }
        FaultActions.cureSilence(daemon, name, by: .powerCycle)
        let found = adapter.found.mostRecentFirst
        adapter.powered = false
        adapter.discovering = false
        adapter.clients.removeAll()
        adapter.found = FoundDevices()
        daemon.adapters[name] = adapter
        daemon.tasks.cancel(prefix: "scan:\(name)")
        DiscoverySessions.invalidateFound(daemon, found)
        for path in daemon.devicePaths(on: name) {
            guard let device = daemon.devices[path] else { continue }
            if case .connecting = device.link { DeviceLinks.linkDown(daemon, path) }  // the pending Connect fails
            if device.connectedProperty { DeviceLinks.linkLost(daemon, path, dropNotifySessions: true) }
        }
        // bluetoothd announces Discovering=false on power-off whether or not it was scanning.
        if announcePowered {
            daemon.change(adapter.path, BluetoothdAPI.adapter, [("Powered", .boolean(false))])
            daemon.change(adapter.path, BluetoothdAPI.adapter, [("Discovering", .boolean(false))])
        } else {
            // Properties.Set: the server announces Powered when this setter returns.
            daemon.schedule(after: .milliseconds(5)) { daemon in
                guard let path = daemon.adapters[name]?.path else { return }
                daemon.change(path, BluetoothdAPI.adapter, [("Discovering", .boolean(false))])
            }
        }
    }

    /// Powers an adapter on.
    static func powerOn(_ daemon: isolated Bluetoothd, _ name: String, announcePowered: Bool) {
        guard var adapter = daemon.adapters[name], !adapter.powered else { return }
        adapter.powered = true
        daemon.adapters[name] = adapter
        if announcePowered { daemon.change(adapter.path, BluetoothdAPI.adapter, [("Powered", .boolean(true))]) }
        DiscoverySessions.listen(daemon, name)
    }

    /// `Properties.Set` on `Adapter1`: side effects before the server stores and announces.
    static func setAdapterProperty(
        _ daemon: isolated Bluetoothd, _ name: String, _ property: String, _ value: DBusValue
    ) throws {
        guard daemon.adapters[name] != nil else { throw BluetoothdError.doesNotExist }
        if property == "Powered", case .boolean(let on) = value {
            if on {
                powerOn(daemon, name, announcePowered: false)
            } else {
                powerOff(daemon, name, announcePowered: false)
            }
        }
    }

    // MARK: Interfaces

    private static func adapterInterface(_ daemon: isolated Bluetoothd, _ spec: MockAdapterSpec) -> ExportedInterface {
        let name = spec.name
        return ExportedInterface(
            name: BluetoothdAPI.adapter,
            methods: [
                daemon.method("StartDiscovery") { daemon, call in
                    try DiscoverySessions.startDiscovery(daemon, adapter: name, client: call.sender)
                },
                daemon.method("StopDiscovery") { daemon, call in
                    try DiscoverySessions.stopDiscovery(daemon, adapter: name, client: call.sender)
                },
                daemon.method("SetDiscoveryFilter", in: "a{sv}") { daemon, call in
                    try DiscoverySessions.setDiscoveryFilter(
                        daemon, adapter: name, client: call.sender, call.arguments[0])
                },
                daemon.method("GetDiscoveryFilters", out: "as") { _, _ in [.strings(ClientDiscoveryFilter.keys)] },
                daemon.method("RemoveDevice", in: "o") { daemon, call in
                    try await DeviceLinks.removeDevice(daemon, adapter: name, try call.argument(0, as: ObjectPath.self))
                },
            ],
            properties: PropertyTables.adapter(spec, powered: false, discovering: false),
            setter: { [weak daemon] property, value, _ in
                guard let daemon else { return }
                try await Bluetoothd.gated { try await setAdapterProperty(daemon, name, property, value) }
            })
    }

    private static func mediaInterface(_ daemon: isolated Bluetoothd) -> ExportedInterface {
        let unsupported: @Sendable (isolated Bluetoothd, MethodCall) async throws -> [DBusValue] = { _, _ in
            throw BluetoothdError.notSupported
        }
        return ExportedInterface(
            name: BluetoothdAPI.media,
            methods: [
                daemon.method("RegisterEndpoint", in: "oa{sv}", unsupported),
                daemon.method("UnregisterEndpoint", in: "o", unsupported),
                daemon.method("RegisterPlayer", in: "oa{sv}", unsupported),
                daemon.method("UnregisterPlayer", in: "o", unsupported),
                daemon.method("RegisterApplication", in: "oa{sv}", unsupported),
                daemon.method("UnregisterApplication", in: "o", unsupported),
            ],
            properties: [ExportedProperty("SupportedUUIDs", .strings([GattUUID.sig(0x110A), GattUUID.sig(0x110B)]))])
    }

    /// A manager bluetoothd offers that the mock does not implement: registering is not
    /// supported, and there is never anything to unregister.
    private static func unimplementedManager(
        _ daemon: isolated Bluetoothd, _ name: String, register: (String, Signature), unregister: (String, Signature),
        properties: [ExportedProperty] = []
    ) -> ExportedInterface {
        ExportedInterface(
            name: name,
            methods: [
                daemon.method(register.0, in: register.1) { _, _ in throw BluetoothdError.notSupported },
                daemon.method(unregister.0, in: unregister.1) { _, _ in throw BluetoothdError.doesNotExist },
            ],
            properties: properties)
    }

    private static func gattManagerInterface(_ daemon: isolated Bluetoothd) -> ExportedInterface {
        unimplementedManager(
            daemon, BluetoothdAPI.gattManager, register: ("RegisterApplication", "oa{sv}"),
            unregister: ("UnregisterApplication", "o"))
    }

    private static func networkServerInterface(_ daemon: isolated Bluetoothd) -> ExportedInterface {
        unimplementedManager(
            daemon, BluetoothdAPI.networkServer, register: ("Register", "ss"), unregister: ("Unregister", "s"))
    }

    private static func advertisingManagerInterface(_ daemon: isolated Bluetoothd) -> ExportedInterface {
        unimplementedManager(
            daemon, BluetoothdAPI.advertisingManager, register: ("RegisterAdvertisement", "oa{sv}"),
            unregister: ("UnregisterAdvertisement", "o"),
            properties: [
                ExportedProperty("ActiveInstances", .byte(0)), ExportedProperty("SupportedInstances", .byte(5)),
                ExportedProperty("SupportedIncludes", .strings(["tx-power", "appearance", "local-name"])),
            ])
    }
}
