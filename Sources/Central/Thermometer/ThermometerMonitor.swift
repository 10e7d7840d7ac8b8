import BlueZClient
public import SensorModel
import ThermometerProfiles
import ConcurrencySupport
public import UnixSupport

/// Keeps every thermometer connected and subscribed, continuously, recovering from every
/// fault BlueZ shows.
///
/// Power state → scan → discover a thermometer (by name or advertised
/// service) → stop the scan → connect → find the service and characteristics
/// by UUID → read → subscribe → report. Each thermometer has its own session
/// task; all of them run on the D-Bus connection's executor.
public actor ThermometerMonitor {
    /// The central underneath.
    public nonisolated let central: CentralManager
    /// The central's executor: the monitor runs on the D-Bus connection's event loop.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { central.unownedExecutor }

    let configuration: ThermometerConfiguration
    let report: @Sendable (SensorEvent) -> Void
    let log: Log

    /// Sessions by thermometer.
    var sessions: [BluetoothAddress: Task<Void, Never>] = [:]
    /// Which session is each thermometer's current one: a session forgotten with its device
    /// ends after a new one may have started, and must not release what the new one holds.
    var sessionTokens: [BluetoothAddress: UInt64] = [:]
    private var nextSessionToken: UInt64 = 0
    /// Subscribed temperature characteristics → their thermometer.
    var streams: [BlueZPath: ThermometerStream] = [:]
    /// Thermometers whose device object is missing: scanning finds them again.
    var awaitingDevice: Set<BluetoothAddress> = []
    /// What is remembered of each device heard, at most `maxDevices`.
    var devices: DeviceMemory
    /// Connection attempts and links (`maxConnecting`, `maxConnections`), and the sessions
    /// waiting for theirs.
    var connectQueue: ConnectQueue
    /// When our scan runs: windows, and pauses for connects.
    var scanning: ScanScheduler
    /// The service UUIDs that mark a thermometer, once (checked for every advertisement).
    private let thermometerServices: Set<BluetoothUUID>
    private var observer: UInt64?
    /// The scan watchdog of each adapter in use (none when `scanWatchdog` is off).
    var watchdogs: [BlueZPath: ScanWatchdog] = [:]
    /// The configured adapters last logged as not present, and the adapters last logged as
    /// left out for their address.
    private var reportedMissing: [String] = []
    private var reportedDuplicates: [String] = []
    var random = SystemRandomNumberGenerator()
    /// Who sets the clocks of devices offering the Current Time Service; nil: left alone.
    var clockKeeper: (any SensorClockKeeper)?

    /// Creates a monitor; `report` is called on the connection's executor.
    public init(
        central: CentralManager, configuration: ThermometerConfiguration = ThermometerConfiguration(),
        log: Log, report: @escaping @Sendable (SensorEvent) -> Void
    ) {
        self.central = central
        self.configuration = configuration
        self.log = log
        self.report = report
        devices = DeviceMemory(capacity: configuration.maxDevices, seenReportInterval: configuration.seenReportInterval)
        connectQueue = ConnectQueue(
            maxConnecting: configuration.maxConnecting, maxConnections: configuration.maxConnections)
        scanning = ScanScheduler(
            pauseLimit: configuration.scanPauseLimit, batchWindow: configuration.connectBatchWindow,
            keepsScanning: configuration.keepsScanning)
        thermometerServices = Set(configuration.profiles.identifyingServiceUUIDs)
    }

    /// Starts following the central: sessions start as thermometers are found.
    ///
    /// Scanning runs in windows: at start, after each new thermometer, for
    /// `rescanWindow` every `rescanPeriod` (so a thermometer switched on later is
    /// found within about that period), and whenever a known thermometer is
    /// missing. A daemon that scanned all the time would wake for every
    /// advertisement nearby and compete with its own connections for the radio.
    public func start() async {
        observer = await central.addObserver { [weak self] event in
            self?.assumeIsolated(passing: event) { $0.handle($1) }
        }
        let state = await central.state
        handle(.stateChanged(state))
        noteMissingAdapters()
        noteDuplicateAdapters()
        guard configuration.searches else { return }
        openScanWindow(configuration.discoveryWindow)
        scanning.rescanner = Task {
            [
                weak self, loop = central.executor, period = configuration.rescanPeriod,
                window = configuration.rescanWindow
            ] in
            while !Task.isCancelled {
                try? await loop.sleep(for: period)
                guard let self else { return }
                await openScanWindow(window)
            }
        }
    }

    /// Stops every session: notifications off, links down, scan stopped.
    ///
    /// The clean-up calls go out together and the whole clean-up ends within `limit`,
    /// whatever BlueZ does: a bluetoothd that stops answering must not hold the daemon's
    /// exit past its supervisor's patience (the calls left waiting fail when the D-Bus
    /// connection closes).
    public func shutdown(within limit: Duration) async {
        if let observer { await central.removeObserver(observer) }
        scanning.stop()
        stopScanWatchdogs()
        let tracked = Set(devices.addresses).union(sessions.keys).union(connectQueue.slots.linked.keys)
        sessions.values.forEach { $0.cancel() }
        sessions = [:]
        let characteristics = streams.keys.map { Characteristic(path: $0, uuid: nil, flags: [], service: $0) }
        streams = [:]
        let links = await central.connectedDevicePaths().compactMap { path in
            path.deviceAddress.flatMap { tracked.contains($0) ? Peripheral(address: $0, path: path, name: nil) : nil }
        }
        connectQueue.cancelAll()
        let central = central
        let finished = await central.executor.run(until: .now + limit) {
            await withTaskGroup(of: Void.self) { group in
                for characteristic in characteristics {
                    group.addTask { try? await central.setNotifyValue(false, for: characteristic) }
                }
                for peripheral in links { group.addTask { await central.cancelPeripheralConnection(peripheral) } }
                group.addTask { await central.stopScan() }
            }
        }
        if finished == nil { log.warning("BlueZ did not answer the clean-up within \(limit); stopping anyway") }
    }

    /// Reads a thermometer now; the value is reported as every value is (see
    /// ``readAndReport(_:)``), before this returns.
    public func readNow(_ address: BluetoothAddress) async throws {
        guard let path = streams.first(where: { $0.value.address == address })?.key else {
            throw CentralError.notFound("no subscribed thermometer \(address)")
        }
        streams[path]?.connectEcho.end()
        try await readAndReport(path)
    }

    /// Reads a subscribed characteristic and reports the value, unless values arrived
    /// while the read ran.
    ///
    /// BlueZ reports the value it read as a `Value` change before it replies, and
    /// notifications may come meanwhile: those were reported already, in the order they
    /// arrived. The reply is no newer than them, so reporting it too would repeat a value or
    /// step back in time; it is reported only when nothing came (no echo).
    func readAndReport(_ path: BlueZPath) async throws {
        let mark = streams[path]?.received
        let bytes = try await central.readValue(for: Characteristic(path: path, uuid: nil, flags: [], service: path))
        guard let stream = streams[path], stream.received == mark else { return }
        deliver(path, bytes)
    }

    /// Addresses of thermometers with a session.
    public var thermometers: [BluetoothAddress] { sessions.keys.sorted() }

    func isTracked(_ address: BluetoothAddress) -> Bool { sessions[address] != nil }

    // MARK: Events from the central

    private func handle(_ event: CentralEvent) {
        switch event {
        case .stateChanged(let state):
            let (adapter, reason) = central.assumeIsolated { ($0.adapterName, $0.stateReason) }
            log.notice("adapter \(adapter ?? "-"): \(state.rawValue)" + (reason.map { " (\($0))" } ?? ""))
            report(.adapterState(adapter: adapter, state, reason: reason))
            if state == .poweredOn, configuration.searches { adoptConnectedThermometers() }
            reconcileScan()
        case .discovered(let discovery):
            discovered(discovery)
        case .peripheralRemoved(let address, _):
            devices.lost(address)
            report(.peripheralLost(address))
        case .valueUpdated(let path, let bytes):
            deliver(path, bytes)
        case .discovering(let adapter, let on):
            if on { armScanWatchdog(adapter) }
        case .heardAgain(let adapter):
            heardAgain(adapter)
        case .discoveryRefused(let adapter, let why):
            log.warning("adapter \(adapter.lastElement): \(why)")
        case .adaptersChanged:
            noteMissingAdapters()
            noteDuplicateAdapters()
        case .disconnected, .servicesChanged, .advertised:
            break  // sessions wait on the central's state for these; adverts are another monitor's
        }
    }

    /// Logs the configured adapters that are not present whenever they change: blectld runs
    /// with the others (`status`' `missing_adapters` tells the same).
    private func noteMissingAdapters() {
        let (missing, inUse) = central.assumeIsolated { ($0.missingAdapters, $0.adapterPaths.map(\.lastElement)) }
        guard missing != reportedMissing else { return }
        let appeared = reportedMissing.filter { !missing.contains($0) }
        reportedMissing = missing
        if !missing.isEmpty {
            let others = inUse.isEmpty ? "no adapter" : inUse.joined(separator: ", ")
            log.warning(
                "configured adapter\(missing.count == 1 ? "" : "s") \(missing.joined(separator: ", ")) not present: "
                    + "running with \(others)")
        }
        guard !appeared.isEmpty else { return }
        // A listed `hciN` that came back renumbered (a USB reset, a re-plug) is named as it is
        // now too: the configured name alone points at the wrong interface.
        let named = central.assumeIsolated { central in
            appeared.map { entry in
                guard let now = central.presentInterfaceName(ofConfigured: entry), now != entry else { return entry }
                return "\(entry) (now \(now))"
            }
        }
        log.notice("configured adapter\(named.count == 1 ? "" : "s") \(named.joined(separator: ", ")) present again")
    }

    /// Logs the adapters left out for having the address of another (once each time they are).
    private func noteDuplicateAdapters() {
        let duplicates = central.assumeIsolated { $0.duplicateAdapters }
        guard duplicates != reportedDuplicates else { return }
        reportedDuplicates = duplicates
        guard !duplicates.isEmpty else { return }
        log.warning(
            "adapter\(duplicates.count == 1 ? "" : "s") \(duplicates.joined(separator: ", ")) not used: "
                + "the address of an adapter in use (adapters are known by address)")
    }

    private func discovered(_ discovery: Discovery) {
        let address = discovery.peripheral.address
        let advertisement = discovery.advertisement
        var note = devices[address] ?? DeviceMemory.Note()
        if let name = DeviceMemory.advertisedName(
            in: discovery, known: note.name, connected: discovery.isConnected, configured: configuration.names)
        {
            note.name = name
        }
        let isThermometer =
            configuration.searches
            && (isThermometer(advertisement) || isTracked(address) || configuration.addresses.contains(address))
        let announce = devices.shouldReportSighting(&note, at: .now)
        remember(address, note)
        if announce {
            report(
                .peripheralSeen(
                    Sighting(
                        address: address, name: note.name ?? advertisement.localName,
                        rssi: discovery.rssi.map(Int.init), isThermometer: isThermometer)))
        }
        guard isThermometer else { return }
        if awaitingDevice.remove(address) != nil { reconcileScan() }
        if !isTracked(address) { openScanWindow(configuration.discoveryWindow) }
        startSession(address)
    }

    /// Keeps what is known of a device as the most recently seen; when the table is full, the
    /// device unseen longest is forgotten: one that is no thermometer if there is any, else a
    /// thermometer's, whose session ends too. Thermometers known to work and those holding a
    /// link are kept.
    func remember(_ address: BluetoothAddress, _ note: DeviceMemory.Note) {
        let forgotten = devices.remember(
            address, note, kept: { connectQueue.holds($0) }, inUse: { sessions[$0] != nil })
        guard let forgotten else { return }
        awaitingDevice.remove(forgotten)
        sessions.removeValue(forKey: forgotten)?.cancel()
        sessionTokens[forgotten] = nil
        connectQueue.forget(forgotten)
    }

    private func isThermometer(_ advertisement: AdvertisementData) -> Bool {
        if let name = advertisement.localName, configuration.names.contains(name) { return true }
        return advertisement.serviceUUIDs.contains { thermometerServices.contains($0) }
    }

    /// Links left up (by us before a restart, or by another client) to devices
    /// that serve a thermometer profile: BlueZ shows them with their GAP name,
    /// so they are recognised by their services.
    private func adoptConnectedThermometers() {
        let serviceUUIDs = Set(configuration.profiles.identifyingServiceUUIDs.map(\.uuidString))
        for path in central.assumeIsolated({ $0.connectedDevicePaths() }) {
            guard let address = path.deviceAddress, !isTracked(address) else { continue }
            let services = central.assumeIsolated { $0.mirror { $0.services(of: path) } }
            guard
                configuration.addresses.contains(address)
                    || services.contains(where: { serviceUUIDs.contains($0.uuid) })
            else { continue }
            remember(address, devices[address] ?? DeviceMemory.Note())
            startSession(address)
        }
    }

    private func startSession(_ address: BluetoothAddress) {
        guard sessions[address] == nil else { return }
        nextSessionToken += 1
        let token = nextSessionToken
        sessionTokens[address] = token
        sessions[address] = Task {
            var session = ConnectSession(address)
            await session.run(self)
            // A session forgotten with its device gave up its place then; a new one may hold it now.
            guard sessionTokens[address] == token else { return }
            connectQueue.release(address)
        }
        // A thermometer to follow: devices are expected from now on.
        armScanWatchdog()
    }

    // MARK: Values

    func deliver(_ path: BlueZPath, _ bytes: [UInt8]) {
        // One lookup, in place, no allocation: this runs for every notification.
        let now = ContinuousClock.now
        guard let (stream, echo) = streams.withValue(forKey: path, { ($0, $0.receive(bytes, at: now)) }) else {
            return
        }
        // It still counts as data for the watchdog and for a read running meanwhile.
        guard !echo else { return }
        let name = devices.name(of: stream.address)
        switch stream.profile.decode(bytes) {
        case .success(let measurement): report(.reading(stream.address, name: name, measurement))
        case .failure(let error):
            log.warning("bad value from \(stream.address): \(error)")
            report(.readingError(stream.address, name: name, error))
        }
    }
}
