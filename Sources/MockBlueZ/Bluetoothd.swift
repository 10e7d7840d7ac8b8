import DBusCore

/// Receives the mock's log lines.
public typealias MockLogger = @Sendable (String) -> Void

/// One life of the fake bluetoothd: its own bus connection (and unique name), the
/// `org.bluez` objects, discovery and notify sessions, links and timers.
///
/// A crash or stop ends it; starting again makes a new one, as a new bluetoothd process
/// would be. It shares its connection's executor, so the object server can be driven
/// synchronously (`assumeIsolated`) and a sequence of signals goes out without anything
/// in between — as bluetoothd's single-threaded main loop sends them.
///
/// This actor is the coordinator: it holds the state every part shares (adapters, devices,
/// GATT objects, notifiers, timers) and the primitives (publishing, methods, timers, pacing).
/// The behaviour lives by concern in ``AdapterControl``, ``DiscoverySessions``,
/// ``DeviceLinks``, ``GattServer``, ``PeripheralNotifier``, ``MonitorManager`` and
/// ``FaultActions``: functions that take this bluetoothd `isolated`, so they run on its
/// executor with no hop, as bluetoothd's own modules share its main loop.
actor Bluetoothd {
    nonisolated let connection: DBusConnection
    nonisolated var unownedExecutor: UnownedSerialExecutor { connection.unownedExecutor }
    /// Exports this bluetoothd's objects and announces their changes.
    let publisher: ObjectPublisher
    let world: PeripheralWorld
    let timings: MockTimings
    /// `bluetoothd --experimental`: adapters offer `AdvertisementMonitorManager1`.
    let experimental: Bool
    /// A successful `Connect` announces `Connected=true` (``MockScenario/announcesConnect``).
    let announcesConnect: Bool
    /// Two present adapters may share an address (``MockScenario/allowsDuplicateAdapterAddresses``).
    let allowsDuplicateAdapterAddresses: Bool
    let log: MockLogger

    /// False once stopped or crashed: timers end, nothing more is sent.
    var running = true
    /// Adapters by name; `adapterOrder` keeps their creation order.
    var adapters: [String: MockAdapter] = [:]
    var adapterOrder: [String] = []
    /// Every adapter this bluetoothd knows of, present or removed.
    var adapterSpecs: [String: MockAdapterSpec] = [:]
    var devices: [ObjectPath: DeviceState] = [:]
    /// Device paths by peripheral (one per adapter that found it), so a report finds the
    /// peripheral's links without looking at every device.
    var devicesByPeripheral: [Int: Set<ObjectPath>] = [:]
    /// `Connect` calls of peripherals that never answer, waiting for a cancel.
    var hangingConnects: [ObjectPath: CheckedContinuation<Void, Never>] = [:]
    var gattObjects: [ObjectPath: GattObject] = [:]
    /// The peripherals' notification timers, by peripheral and characteristic UUID.
    var notifiers: [NotifierKey: NotifierState] = [:]
    var tasks = TaskBag()
    /// Messages sent since the bus last confirmed it had read everything (see ``paced()``).
    var sentSincePace = 0

    /// How many notifications may be in flight before waiting for the bus: about 64 KB
    /// queued at most; a wider window than 32 saves 15 % of the mock's CPU in a burst
    /// (fewer round trips that park its thread).
    static let paceWindow = 256

    private init(
        connection: DBusConnection, server: DBusObjectServer, world: PeripheralWorld, scenario: MockScenario,
        log: @escaping MockLogger
    ) {
        self.connection = connection
        publisher = ObjectPublisher(server: server, log: log)
        self.world = world
        self.timings = scenario.timings
        experimental = scenario.experimental
        announcesConnect = scenario.announcesConnect
        allowsDuplicateAdapterAddresses = scenario.allowsDuplicateAdapterAddresses
        let adapters = scenario.adapters
        self.log = log
        for spec in adapters { adapterSpecs[spec.name] = spec }
        adapterOrder = adapters.map(\.name)
    }

    /// Starts a bluetoothd on `bus`: connects, claims `org.bluez`, exports the adapters and
    /// the devices it stored, and returns once AutoEnable has powered the adapters.
    static func launch(
        bus: BusAddress, world: PeripheralWorld, scenario: MockScenario, log: @escaping MockLogger
    ) async throws -> Bluetoothd {
        let connection = try await DBusConnection.connect(to: bus, label: "bluetoothd")
        do {
            let server = await DBusObjectServer(connection: connection, listsStandardInterfaces: true)
            await server.addObjectManager(at: .root)
            let daemon = Bluetoothd(
                connection: connection, server: server, world: world, scenario: scenario, log: log)
            try await daemon.start()
            return daemon
        } catch {
            await connection.close()
            throw error
        }
    }

    private func start() async throws {
        // One watch for every client leaving the bus: discovery and notify sessions die with
        // their client's connection (bluetoothd adds a disconnect watch per client).
        _ = try await connection.addSignalHandler(
            MatchRule(
                sender: BusDaemon.name, interface: BusDaemon.interface, member: "NameOwnerChanged",
                path: BusDaemon.path)
        ) { [weak self] message in
            guard let change = NameOwnerChange(message), change.newOwner == nil, change.name.hasPrefix(":") else {
                return
            }
            Task { await self?.clientVanished(change.name) }
        }
        // bluetoothd asks with DBUS_NAME_FLAG_DO_NOT_QUEUE (4), as the trace shows.
        let result = try await connection.requestName(BluetoothdAPI.busName, flags: 0x4)
        guard result == .primaryOwner || result == .alreadyOwner else {
            throw DBusError(
                name: "org.blectl.Mock.Error.NameTaken",
                message: "\(BluetoothdAPI.busName) is already owned on this bus")
        }
        log("bluetoothd \(connection.uniqueName) owns \(BluetoothdAPI.busName)")
        AdapterControl.exportManagers(self)
        for name in adapterOrder { AdapterControl.addAdapterObjects(self, name) }
        try await Task.sleep(for: timings.autoEnable)
        for name in adapterOrder { AdapterControl.autoEnable(self, name) }
    }

    /// The address of the adapter named `name`, present or removed, if this bluetoothd knows it.
    func knownAdapterAddress(_ name: String) -> String? { adapterSpecs[name]?.address }

    /// The reports adapter `name` heard, per peripheral (``MockAdapter/reportsHeard``).
    func reportsHeard(adapter name: String) -> [Int] {
        adapters[name]?.reportsHeard ?? []
    }

    /// Stops cleanly, as on SIGTERM: links drop (`Connected=false`), every object is removed,
    /// then the name is released and the connection closed.
    func shutdown() async {
        guard running else { return }
        for name in adapterOrder where adapters[name] != nil {
            for path in devicePaths(on: name) where devices[path]?.connectedProperty == true {
                var changes: [(String, DBusValue)] = []
                if devices[path]?.servicesResolved == true { changes.append(("ServicesResolved", .boolean(false))) }
                changes.append(("Connected", .boolean(false)))
                devices[path]?.link = .down
                devices[path]?.servicesResolved = false
                change(path, BluetoothdAPI.device, changes)
            }
        }
        // Removing each adapter stores its devices.
        for name in adapterOrder where adapters[name] != nil { AdapterControl.removeAdapterObjects(self, name) }
        unexport(BluetoothdAPI.rootPath)
        running = false
        tasks.cancelAll()
        endHangingConnects()
        // The name is released after the signals: one connection delivers in order, so
        // NameOwnerChanged reaches clients after InterfacesRemoved.
        try? await connection.releaseName(BluetoothdAPI.busName)
        await connection.close()
        log("bluetoothd stopped")
    }

    /// Dies at once, as on SIGKILL: the connection closes without a signal.
    func crash() async {
        guard running else { return }
        running = false
        tasks.cancelAll()
        endHangingConnects()
        storeDevices()
        await connection.close()
        log("bluetoothd crashed")
    }

    /// Fails the `Connect` calls that never answered (their handlers end with bluetoothd).
    private func endHangingConnects() {
        let pending = hangingConnects.values
        hangingConnects = [:]
        for connect in pending { connect.resume() }
    }

    /// Keeps the devices bluetoothd would have on disk (not temporary) for its next start,
    /// in the storage of each present adapter's address (removed adapters' storage stays).
    private func storeDevices() {
        for name in adapterOrder where adapters[name] != nil { storeDevices(of: name) }
    }

    /// Keeps the devices of adapter `name` that are not temporary under its address, as
    /// bluetoothd's storage (`/var/lib/bluetooth/<adapter address>/`) has them.
    func storeDevices(of name: String) {
        guard let address = adapterSpecs[name]?.address else { return }
        var stored: [String: StoredDevice] = [:]
        for device in devices.values where device.adapterName == name && !device.temporary {
            stored[device.address] = StoredDevice(name: device.name, uuids: device.uuids)
        }
        world.withState { $0.stored[address] = stored }
    }

    // MARK: Serving objects

    /// Runs `body` on the object server right now, on this executor (no suspension).
    func objects<T: Sendable>(_ body: (isolated DBusObjectServer) throws -> T) rethrows -> T {
        try publisher.objects(body)
    }

    func export(_ path: ObjectPath, _ interfaces: [ExportedInterface]) {
        guard running else { return }
        publisher.export(path, interfaces)
    }

    func unexport(_ path: ObjectPath, interfaces: [String]? = nil) {
        guard running else { return }
        publisher.unexport(path, interfaces: interfaces)
    }

    /// Changes properties and sends one `PropertiesChanged` (see ``ObjectPublisher``).
    func change(
        _ path: ObjectPath, _ interface: String, _ changed: [(String, DBusValue)], invalidated: [String] = []
    ) {
        guard running else { return }
        publisher.change(path, interface, changed, invalidated: invalidated)
    }

    /// Changes properties without a signal (what `Get` shows differs from what was announced).
    func changeSilently(_ path: ObjectPath, _ interface: String, _ changed: [(String, DBusValue)]) {
        guard running else { return }
        publisher.changeSilently(path, interface, changed)
    }

    /// An org.bluez method: its handler runs on this bluetoothd, after any slow-replies delay.
    nonisolated func method(
        _ name: String, in inSignature: Signature? = .empty, out outSignature: Signature = .empty,
        _ body: @escaping @Sendable (isolated Bluetoothd, MethodCall) async throws -> [DBusValue]
    ) -> ExportedMethod {
        ExportedMethod(name, in: inSignature, out: outSignature) { [weak self] call in
            guard let self else { throw DBusError(name: DBusError.Name.failed, message: "bluetoothd is gone") }
            return try await Self.gated { try await self.handle(name, call, body) }
        }
    }

    /// Runs a method (or `Properties.Set`) handler with a ``ReplyGate`` that opens when it returns.
    nonisolated static func gated<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        let gate = ReplyGate()
        defer { gate.open() }
        return try await ReplyGate.$current.withValue(gate) { try await body() }
    }

    private func handle(
        _ name: String, _ call: MethodCall,
        _ body: @Sendable (isolated Bluetoothd, MethodCall) async throws -> [DBusValue]
    ) async throws -> [DBusValue] {
        if let delay = world.withState({ $0.faults.replyDelay(for: name) }) {
            try await Task.sleep(for: delay)
        }
        guard running else { throw DBusError.disconnected("bluetoothd stopped") }
        return try await body(self, call)
    }

    // MARK: Timers

    /// Runs `body` after `delay` unless bluetoothd stops (or another task takes `key`) first.
    func schedule(
        _ key: String? = nil, after delay: Duration = .zero,
        _ body: @escaping @Sendable (isolated Bluetoothd) async -> Void
    ) {
        guard running else { return }
        let id = tasks.nextID()
        let key = key ?? "once-\(id)"
        let gate = ReplyGate.current
        let task = Task { [weak self] in
            // Inside a method handler: start counting once the reply is on its way.
            if let gate { await gate.wait() }
            let wait = gate == nil ? delay : max(delay, .milliseconds(1))
            if wait > .zero {
                do { try await Task.sleep(for: wait) } catch { return }
            }
            await self?.runScheduled(key, id, body)
        }
        tasks.set(key, id: id, task)
    }

    private func runScheduled(
        _ key: String, _ id: Int, _ body: @Sendable (isolated Bluetoothd) async -> Void
    ) async {
        guard running, tasks.isCurrent(key, id: id), !Task.isCancelled else { return }
        await body(self)
        tasks.finished(key, id: id)
    }

    /// Keeps the outgoing queue short: every ``paceWindow`` messages, a round trip to the bus,
    /// which answers only after reading everything sent before it (one connection is FIFO).
    /// Notifications at any rate then use bounded memory, and a burst runs as fast as the
    /// bus takes it.
    func paced() async {
        sentSincePace += 1
        guard sentSincePace >= Self.paceWindow else { return }
        sentSincePace = 0
        _ = try? await connection.call(
            destination: BusDaemon.name, path: BusDaemon.path, interface: BusDaemon.interface, member: "GetId",
            timeout: .seconds(10))
    }

    // MARK: Clients

    /// A client left the bus: its discovery sessions, filters and notify sessions end.
    func clientVanished(_ client: String) {
        guard running else { return }
        for name in adapterOrder where adapters[name]?.clients.hasEntry(client) == true {
            DiscoverySessions.endDiscoveryClient(self, client, adapter: name)
        }
        for name in adapterOrder { MonitorManager.endMonitorApps(self, of: client, adapter: name) }
        for path in devices.keys.sorted() { GattServer.endNotifySessions(self, of: client, device: path) }
    }

    /// Adds a new device object's state (exporting it is the caller's).
    func add(_ device: DeviceState) {
        devices[device.path] = device
        devicesByPeripheral[device.peripheral, default: []].insert(device.path)
    }

    func devicePaths(on adapter: String) -> [ObjectPath] {
        devices.values.filter { $0.adapterName == adapter }.map(\.path).sorted()
    }

    /// The peripheral's current state.
    func peripheral(_ index: Int) -> PeripheralState { world.withState { $0.peripherals[index] } }
}
