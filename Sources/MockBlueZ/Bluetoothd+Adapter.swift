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
    /// Clients' advertisement monitors (`RegisterMonitor`, with `--experimental`).
    var monitorApps: [MonitorApp] = []

    /// Whether the controller listens to advertisements: discovery, or passive scanning
    /// for registered monitors.
    var listening: Bool { powered && (discovering || !monitorApps.isEmpty) }
}

extension Bluetoothd {
    static func adapterPath(_ name: String) -> ObjectPath { BluetoothdAPI.rootPath.appending(name)! }

    /// `/org/bluez` with the manager interfaces bluetoothd registers there.
    func exportManagers() {
        let accept: @Sendable (isolated Bluetoothd, MethodCall) async throws -> [DBusValue] = { _, _ in [] }
        let unsupported: @Sendable (isolated Bluetoothd, MethodCall) async throws -> [DBusValue] = { _, _ in
            throw BluetoothdError.notSupported
        }
        export(
            BluetoothdAPI.rootPath,
            [
                ExportedInterface(
                    name: BluetoothdAPI.agentManager,
                    methods: [
                        method("RegisterAgent", in: "os", accept), method("UnregisterAgent", in: "o", accept),
                        method("RequestDefaultAgent", in: "o", accept),
                    ]),
                ExportedInterface(
                    name: BluetoothdAPI.profileManager,
                    methods: [
                        method("RegisterProfile", in: "osa{sv}", unsupported),
                        method("UnregisterProfile", in: "o", unsupported),
                    ]),
                ExportedInterface(
                    name: BluetoothdAPI.healthManager,
                    methods: [
                        method("CreateApplication", in: "a{sv}", out: "o", unsupported),
                        method("DestroyApplication", in: "o", unsupported),
                    ]),
            ])
    }

    /// Exports an adapter, unpowered, with the devices bluetoothd stored for it.
    func addAdapterObjects(_ name: String) {
        guard let spec = adapterSpecs[name] else { return }
        let path = Self.adapterPath(name)
        adapters[name] = MockAdapter(spec: spec, path: path)
        if !adapterOrder.contains(name) { adapterOrder.append(name) }
        export(path, [adapterInterface(spec), gattManagerInterface, mediaInterface, networkServerInterface])
        if experimental { export(path, [advertisementMonitorManagerInterface(name)]) }
        let stored = world.withState { state in
            (state.stored[name] ?? [:]).sorted { $0.key < $1.key }.compactMap { entry in
                state.index(of: entry.key).map { ($0, entry.value) }
            }
        }
        for (index, record) in stored {
            var device = DeviceState(
                adapterName: name, adapterPath: path, peripheral: index, spec: peripheral(index).spec)
            device.name = record.name
            device.uuids = record.uuids
            device.temporary = false
            add(device)
            export(device.path, [deviceInterface(device)])
        }
    }

    /// AutoEnable: the advertising manager appears and the adapter is powered.
    func autoEnable(_ name: String) {
        guard var adapter = adapters[name], !adapter.powered else { return }
        adapter.powered = true
        adapters[name] = adapter
        if !objects({ $0.hasInterface(adapter.path, BluetoothdAPI.advertisingManager) }) {
            export(adapter.path, [advertisingManagerInterface])
        }
        change(
            adapter.path, BluetoothdAPI.adapter,
            [
                ("Powered", .boolean(true)), ("UUIDs", .strings(PropertyTables.adapterUUIDs)),
                ("Alias", .string(adapter.spec.alias)),
            ])
        listen(name)
    }

    /// Removes an adapter and everything under it, as when its controller is unplugged.
    func removeAdapterObjects(_ name: String) {
        guard let adapter = adapters[name] else { return }
        tasks.cancel(prefix: "scan:\(name)")
        for path in devicePaths(on: name) { removeDevice(path, announceLinkLoss: false) }
        unexport(adapter.path)
        adapters[name] = nil
    }

    /// Powers an adapter off: links drop, notifications stop, then `Powered` and
    /// `Discovering` go false (the order the notes measured). `announcePowered` is false when
    /// `Properties.Set` made the change: the object server announces `Powered` itself.
    func powerOff(_ name: String, announcePowered: Bool) {
        guard var adapter = adapters[name], adapter.powered else { return }
        cureSilence(name, by: .powerCycle)
        let found = adapter.found.mostRecentFirst
        adapter.powered = false
        adapter.discovering = false
        adapter.clients.removeAll()
        adapter.found = FoundDevices()
        adapters[name] = adapter
        tasks.cancel(prefix: "scan:\(name)")
        invalidateFound(found)
        for path in devicePaths(on: name) {
            guard let device = devices[path] else { continue }
            if case .connecting = device.link { linkDown(path) }  // the pending Connect fails
            if device.connectedProperty { linkLost(path, dropNotifySessions: true) }
        }
        // bluetoothd announces Discovering=false on power-off whether or not it was scanning.
        if announcePowered {
            change(adapter.path, BluetoothdAPI.adapter, [("Powered", .boolean(false))])
            change(adapter.path, BluetoothdAPI.adapter, [("Discovering", .boolean(false))])
        } else {
            // Properties.Set: the server announces Powered when this setter returns.
            schedule(after: .milliseconds(5)) { daemon in
                guard let path = daemon.adapters[name]?.path else { return }
                daemon.change(path, BluetoothdAPI.adapter, [("Discovering", .boolean(false))])
            }
        }
    }

    /// Powers an adapter on.
    func powerOn(_ name: String, announcePowered: Bool) {
        guard var adapter = adapters[name], !adapter.powered else { return }
        adapter.powered = true
        adapters[name] = adapter
        if announcePowered { change(adapter.path, BluetoothdAPI.adapter, [("Powered", .boolean(true))]) }
        listen(name)
    }

    /// `Properties.Set` on `Adapter1`: side effects before the server stores and announces.
    func setAdapterProperty(_ name: String, _ property: String, _ value: DBusValue) throws {
        guard adapters[name] != nil else { throw BluetoothdError.doesNotExist }
        if property == "Powered", case .boolean(let on) = value {
            if on { powerOn(name, announcePowered: false) } else { powerOff(name, announcePowered: false) }
        }
    }

    // MARK: Interfaces

    private func adapterInterface(_ spec: MockAdapterSpec) -> ExportedInterface {
        let name = spec.name
        return ExportedInterface(
            name: BluetoothdAPI.adapter,
            methods: [
                method("StartDiscovery") { daemon, call in try daemon.startDiscovery(adapter: name, client: call.sender)
                },
                method("StopDiscovery") { daemon, call in try daemon.stopDiscovery(adapter: name, client: call.sender)
                },
                method("SetDiscoveryFilter", in: "a{sv}") { daemon, call in
                    try daemon.setDiscoveryFilter(adapter: name, client: call.sender, call.arguments[0])
                },
                method("GetDiscoveryFilters", out: "as") { _, _ in [.strings(ClientDiscoveryFilter.keys)] },
                method("RemoveDevice", in: "o") { daemon, call in
                    try await daemon.removeDevice(adapter: name, try call.argument(0, as: ObjectPath.self))
                },
            ],
            properties: PropertyTables.adapter(spec, powered: false, discovering: false),
            setter: { [weak self] property, value, _ in
                guard let self else { return }
                try await Self.gated { try await self.setAdapterProperty(name, property, value) }
            })
    }

    private var gattManagerInterface: ExportedInterface {
        ExportedInterface(
            name: BluetoothdAPI.gattManager,
            methods: [
                method("RegisterApplication", in: "oa{sv}") { _, _ in throw BluetoothdError.notSupported },
                method("UnregisterApplication", in: "o") { _, _ in throw BluetoothdError.doesNotExist },
            ])
    }

    private var mediaInterface: ExportedInterface {
        let unsupported: @Sendable (isolated Bluetoothd, MethodCall) async throws -> [DBusValue] = { _, _ in
            throw BluetoothdError.notSupported
        }
        return ExportedInterface(
            name: BluetoothdAPI.media,
            methods: [
                method("RegisterEndpoint", in: "oa{sv}", unsupported),
                method("UnregisterEndpoint", in: "o", unsupported),
                method("RegisterPlayer", in: "oa{sv}", unsupported), method("UnregisterPlayer", in: "o", unsupported),
                method("RegisterApplication", in: "oa{sv}", unsupported),
                method("UnregisterApplication", in: "o", unsupported),
            ],
            properties: [ExportedProperty("SupportedUUIDs", .strings([GattUUID.sig(0x110A), GattUUID.sig(0x110B)]))])
    }

    private var networkServerInterface: ExportedInterface {
        ExportedInterface(
            name: BluetoothdAPI.networkServer,
            methods: [
                method("Register", in: "ss") { _, _ in throw BluetoothdError.notSupported },
                method("Unregister", in: "s") { _, _ in throw BluetoothdError.doesNotExist },
            ])
    }

    private var advertisingManagerInterface: ExportedInterface {
        ExportedInterface(
            name: BluetoothdAPI.advertisingManager,
            methods: [
                method("RegisterAdvertisement", in: "oa{sv}") { _, _ in throw BluetoothdError.notSupported },
                method("UnregisterAdvertisement", in: "o") { _, _ in throw BluetoothdError.doesNotExist },
            ],
            properties: [
                ExportedProperty("ActiveInstances", .byte(0)), ExportedProperty("SupportedInstances", .byte(5)),
                ExportedProperty("SupportedIncludes", .strings(["tx-power", "appearance", "local-name"])),
            ])
    }
}
