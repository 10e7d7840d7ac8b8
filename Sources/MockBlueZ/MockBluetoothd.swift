public import DBusCore

/// A fake bluetoothd serving BlueZ 5.66's D-Bus API (`org.bluez`) with simulated
/// peripherals, for running and testing a BlueZ central where there is no Bluetooth.
///
/// Start it on a bus with ``start(bus:scenario:serveControl:log:)``; central code then talks
/// to `org.bluez` on that bus unchanged. Faults (``inject(_:)``) and the world (temperatures,
/// notification interval) can be changed mid-run, in process or through the control
/// interface `org.blectl.Mock1` that ``start(bus:scenario:serveControl:log:)`` serves on a
/// second connection (see `docs/mock-adapter.md`).
public actor MockBluetoothd {
    /// The bus the mock serves on.
    public nonisolated let bus: BusAddress
    /// The scenario it was started with.
    public nonisolated let scenario: MockScenario
    let world: PeripheralWorld
    let log: MockLogger
    private var daemon: Bluetoothd?
    private var control: (connection: DBusConnection, server: DBusObjectServer)?
    private var restart: Task<Void, Never>?
    private var stopped = false
    private var busLost: (@Sendable () -> Void)?
    /// Connections the bus dropped while watched (``onBusLost(_:)``), counted even after the
    /// handler ran: what a test waits for before saying the handler ran only once.
    public private(set) var droppedConnections = 0

    private init(bus: BusAddress, scenario: MockScenario, log: @escaping MockLogger) {
        self.bus = bus
        self.scenario = scenario
        self.log = log
        world = PeripheralWorld(scenario: scenario)
    }

    /// Starts the mock on `bus` and returns once `org.bluez` is owned and the adapters are
    /// powered (and, with `serveControl`, once `org.blectl.Mock` is owned too). Two adapters
    /// of one name, or of one address (unless the scenario allows it), are a ``MockError``.
    public static func start(
        bus: BusAddress, scenario: MockScenario = .standard(), serveControl: Bool = true,
        log: @escaping MockLogger = { _ in }
    ) async throws -> MockBluetoothd {
        try scenario.validateAdapters()
        let mock = MockBluetoothd(bus: bus, scenario: scenario, log: log)
        do {
            try await mock.startBluetoothd()
            if serveControl { try await mock.startControl() }
        } catch {
            await mock.stop()
            throw error
        }
        return mock
    }

    /// Starts the mock on the bus at `address` (such as `unix:path=/tmp/bus`).
    public static func start(
        address: String, scenario: MockScenario = .standard(), serveControl: Bool = true,
        log: @escaping MockLogger = { _ in }
    ) async throws -> MockBluetoothd {
        try await start(bus: .address(address), scenario: scenario, serveControl: serveControl, log: log)
    }

    /// Stops everything: bluetoothd stops cleanly (if running) and the control interface goes.
    public func stop() async {
        stopped = true
        restart?.cancel()
        restart = nil
        if let daemon {
            self.daemon = nil
            await daemon.shutdown()
        }
        if let control {
            self.control = nil
            await control.connection.close()
        }
    }

    /// Calls `handler` once if the bus drops one of the mock's connections (dbus-daemon
    /// went away); a real bluetoothd exits then. Stopping and the stop and crash faults
    /// close connections on purpose and do not count.
    public func onBusLost(_ handler: @escaping @Sendable () -> Void) async {
        busLost = handler
        if let daemon { await watch(daemon.connection) }
        if let control { await watch(control.connection) }
    }

    private func watch(_ connection: DBusConnection) async {
        await connection.addDropHandler { [weak self] in Task { await self?.connectionDropped() } }
    }

    private func connectionDropped() {
        droppedConnections += 1
        guard !stopped, let handler = busLost else { return }
        busLost = nil
        handler()
    }

    /// The unique bus name of the running bluetoothd, or nil while it is stopped.
    public var bluetoothdUniqueName: String? { daemon?.connection.uniqueName }

    /// Whether bluetoothd is running (owns `org.bluez`).
    public var isBluetoothdRunning: Bool { daemon != nil }

    // MARK: Faults

    /// Injects a fault; see ``MockFault`` for the shape of each.
    public func inject(_ fault: MockFault) async throws {
        switch fault {
        case .powerOff(let adapter): try await FaultActions.powerFault(running(), adapter, on: false)
        case .powerOn(let adapter): try await FaultActions.powerFault(running(), adapter, on: true)
        case .removeAdapter(let adapter): try await FaultActions.removeAdapter(running(), adapter)
        case .addAdapter(let adapter, let address):
            try await FaultActions.addAdapter(running(), adapter, address: address)
        case .remoteDisconnect(let address, let adapter):
            try await FaultActions.remoteDisconnect(running(), address: address, adapter: adapter)
        case .gattRestart(let address):
            let index = try peripheralIndex(address)
            try await FaultActions.gattRestart(running(), peripheral: index)
        case .failConnect(let times, let error, let address):
            world.withState {
                $0.faults.connectFailures.append(.init(value: error, remaining: times, address: address?.uppercased()))
            }
        case .connectRace(let times, let address):
            world.withState {
                $0.faults.connectRaces.append(.init(value: (), remaining: times, address: address?.uppercased()))
            }
        case .stopDiscoveryInProgress(let times):
            world.withState { $0.faults.stopDiscoveryInProgress.append(.init(value: (), remaining: times)) }
        case .startDiscoveryBusy(let times, let adapter):
            world.withState {
                $0.faults.startDiscoveryBusy.append(.init(value: (), remaining: times, address: adapter))
            }
        case .setSignal(let signal, let adapter, let address):
            try await setSignal(signal, adapter: adapter, peripheral: address)
        case .flapSignal(let address, let strongOn, let weakOn, let strong, let weak):
            try await setSignal(.alternating(first: strong, second: weak), adapter: strongOn, peripheral: address)
            try await setSignal(.alternating(first: weak, second: strong), adapter: weakOn, peripheral: address)
        case .servicesNeverResolve(let times, let address):
            world.withState {
                $0.faults.unresolvedServices.append(.init(value: (), remaining: times, address: address?.uppercased()))
            }
        case .slowReplies(let delay, let times, let methods):
            world.withState { $0.faults.slowReplies.append(.init(value: (delay, methods), remaining: times)) }
        case .malformedValues(let kind, let times, let address):
            world.withState {
                $0.faults.malformedValues.append(.init(value: kind, remaining: times, address: address?.uppercased()))
            }
        case .outOfRange(let times, let address):
            world.withState {
                $0.faults.outOfRange.append(.init(value: (), remaining: times, address: address?.uppercased()))
            }
        case .stopBluetoothd(let restartAfter):
            let daemon = try running()
            self.daemon = nil
            await daemon.shutdown()
            scheduleRestart(after: restartAfter)
        case .crashBluetoothd(let restartAfter):
            let daemon = try running()
            self.daemon = nil
            await daemon.crash()
            scheduleRestart(after: restartAfter)
        case .silence(let adapter, let cure):
            try await FaultActions.silence(running(), adapter, cure: cure)
        case .controllerReset(let adapter):
            try await FaultActions.resetController(running(), adapter)
        case .sensorMemory(let memoryFault, let address):
            try await MemorySensorFaultActions.inject(
                memoryFault, peripheral: peripheralIndex(address), world: world, daemon: daemon)
        case .startBluetoothd:
            guard daemon == nil else {
                throw MockError(name: "org.blectl.Mock.Error.AlreadyRunning", message: "bluetoothd is running")
            }
            try await startBluetoothd()
        }
        log("fault: \(fault)")
    }

    /// Disarms every fault still waiting to strike (connect failures, slow replies, …).
    public func clearFaults() {
        world.withState {
            $0.faults = FaultPlan()
            MemorySensorFaultActions.clear(&$0)
        }
    }

    // MARK: The world

    /// Sets a thermometer's CPU temperature, in °C (its pattern goes on from there).
    public func setTemperature(_ celsius: Double, address: String) throws {
        let index = try thermometerIndex(address)
        world.withState { $0.peripherals[index].temperature?.set(celsius: celsius) }
    }

    /// Sets how a thermometer's temperature moves (every thermometer's when `address` is nil).
    public func setPattern(_ pattern: MockTemperaturePattern, address: String? = nil) throws {
        let indexes = try address.map { [try thermometerIndex($0)] }
        world.withState { world in
            for index in indexes ?? Array(world.peripherals.indices) where world.peripherals[index].temperature != nil {
                world.peripherals[index].temperature?.pattern = pattern
            }
        }
    }

    /// Sets the thermometers' notification period (down to a millisecond, for benchmarks);
    /// it takes effect at once.
    public func setNotifyInterval(_ interval: Duration) async {
        world.withState { $0.notifyInterval = max(interval, .microseconds(100)) }
        if let daemon { await PeripheralNotifier.notifyIntervalChanged(daemon) }
    }

    /// The current notification period.
    public var notifyInterval: Duration { world.withState { $0.notifyInterval } }

    /// Sends `count` temperature notifications of a subscribed thermometer as fast as the bus
    /// takes them (paced on the connection's outgoing queue); returns how many went out.
    public func burst(address: String, count: Int) async throws -> Int {
        let index = try thermometerIndex(address)
        return try await PeripheralNotifier.burst(running(), peripheral: index, count: count)
    }

    /// The peripherals and what bluetoothd currently shows of them.
    public func devices() async -> [MockDeviceInfo] {
        var snapshot: [Int: (paths: [ObjectPath], connected: Bool, notifying: Bool)] = [:]
        if let daemon { snapshot = await PeripheralNotifier.snapshot(daemon) }
        let peripherals = world.withState { $0.peripherals }
        return peripherals.enumerated().map { index, state in
            let entry = snapshot[index]
            return MockDeviceInfo(
                state: state, objectPaths: entry?.paths.map(\.rawValue) ?? [], connected: entry?.connected ?? false,
                notifying: entry?.notifying ?? false)
        }
    }

    /// The advertising reports adapter `name` has heard, per peripheral in the scenario's
    /// order (a report filtered out counts); empty while bluetoothd is stopped.
    public func reportsHeard(adapter name: String) async -> [Int] {
        guard let daemon else { return [] }
        return await daemon.reportsHeard(adapter: name)
    }

    /// `StartDiscovery` calls accepted so far (by every bluetoothd of this run).
    public nonisolated var startDiscoveryCalls: Int { world.withState { $0.startDiscoveryCalls } }

    /// The advertisement monitor applications registered now (`RegisterMonitor`), as
    /// `adapter owner root`.
    public func monitorApps() async -> [String] {
        guard let daemon else { return [] }
        return await MonitorManager.monitorAppList(daemon)
    }

    /// Sets what `adapter` (a name bluetoothd knows, or an address) hears of `peripheral`.
    private func setSignal(_ signal: MockSignal, adapter: String, peripheral: String?) async throws {
        if let peripheral { _ = try peripheralIndex(peripheral) }
        let known = await daemon?.knownAdapterAddress(adapter)
        let address = try known ?? scenario.adapterAddress(adapter)
        world.withState { $0.ranges.set(signal, adapter: address, peripheral: peripheral) }
    }

    // MARK: Internals

    private func running() throws -> Bluetoothd {
        guard let daemon else { throw MockError.notRunning }
        return daemon
    }

    private func peripheralIndex(_ address: String) throws -> Int {
        guard let index = world.withState({ $0.index(of: address) }) else { throw MockError.unknownDevice(address) }
        return index
    }

    private func thermometerIndex(_ address: String) throws -> Int {
        let index = try peripheralIndex(address)
        guard world.withState({ $0.peripherals[index].temperature != nil }) else {
            throw MockError(name: "org.blectl.Mock.Error.NotAThermometer", message: "\(address) is not a thermometer")
        }
        return index
    }

    private func startBluetoothd() async throws {
        let daemon = try await Bluetoothd.launch(bus: bus, world: world, scenario: scenario, log: log)
        self.daemon = daemon
        if busLost != nil { await watch(daemon.connection) }
    }

    private func scheduleRestart(after delay: Duration?) {
        guard let delay, !stopped else { return }
        restart = Task { [weak self] in
            do { try await Task.sleep(for: delay) } catch { return }
            await self?.restartIfStopped()
        }
    }

    private func restartIfStopped() async {
        guard daemon == nil, !stopped else { return }
        do { try await startBluetoothd() } catch { log("bluetoothd did not start again: \(error)") }
    }

    private func startControl() async throws {
        let connection = try await DBusConnection.connect(to: bus, label: "mock-control")
        let server = await DBusObjectServer(connection: connection)
        try await server.export(MockControl.path, [MockControl.interface(for: self)])
        let result = try await connection.requestName(MockControl.busName)
        guard result == .primaryOwner || result == .alreadyOwner else {
            await connection.close()
            throw DBusError(
                name: "org.blectl.Mock.Error.NameTaken", message: "\(MockControl.busName) is already owned on this bus")
        }
        control = (connection, server)
    }
}

/// A peripheral of the mock and what bluetoothd currently shows of it.
public struct MockDeviceInfo: Sendable, Equatable {
    /// The device address.
    public var address: String
    /// `public` or `random`.
    public var addressType: String
    /// The advertised name, if any.
    public var advertisedName: String?
    /// `thermometer`, `heart-rate-strap` or `beacon`.
    public var kind: String
    /// The thermometer's current unit.
    public var unit: MockTemperatureUnit?
    /// The thermometer's current CPU temperature, in °C.
    public var celsius: Double?
    /// The thermometer's temperature pattern.
    public var pattern: MockTemperaturePattern?
    /// The thermometer's service UUID (in its spelling).
    public var serviceUUID: String?
    /// The `Device1` objects bluetoothd has for it (one per adapter that saw it).
    public var objectPaths: [String]
    /// Whether a link to it is up.
    public var connected: Bool
    /// Whether a characteristic of it notifies.
    public var notifying: Bool
    /// Whether its GATT application is registered (false while a `gatt-restart` fault holds it
    /// down).
    public var gattApplicationUp: Bool
    /// The first handle of its GATT application: a restart registers it at new handles.
    public var gattHandleBase: UInt16

    init(state: PeripheralState, objectPaths: [String], connected: Bool, notifying: Bool) {
        address = state.spec.address
        addressType = state.spec.addressType
        advertisedName = state.spec.advertisedName
        switch state.spec.kind {
        case .piThermometer(let thermometer):
            kind = "thermometer"
            unit = state.unit
            celsius = state.temperature?.celsius
            pattern = state.temperature?.pattern
            serviceUUID = GattUUID.thermometer(1, thermometer.spelling)
        case .heartRateStrap:
            kind = "heart-rate-strap"
        case .beacon:
            kind = "beacon"
        case .advertiser(let advertiser):
            kind = "advertiser-" + advertiser.format.rawValue
            celsius = state.advertiser.map { Double($0.centiCelsius) / 100 }
        }
        self.objectPaths = objectPaths
        self.connected = connected
        self.notifying = notifying
        gattApplicationUp = state.applicationUp
        gattHandleBase = state.applicationBase
    }
}
