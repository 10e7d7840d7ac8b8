import BlueZClient
public import SensorModel
import ThermometerProfiles
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
    var streams: [BlueZPath: Stream] = [:]
    /// Thermometers whose device object is missing: scanning finds them again.
    var awaitingDevice: Set<BluetoothAddress> = []
    /// Connects under way (our scan pauses meanwhile: a controller scanning while it
    /// connects makes connections slower and less reliable).
    var connectsInFlight = 0
    /// When the current pause for connects began.
    var connectPauseStarted: ContinuousClock.Instant?
    /// When the last pause for connects ended (the scan resumed).
    var connectPauseEnded: ContinuousClock.Instant?
    /// What is remembered of each device heard, at most `maxDevices` (the one unseen longest
    /// forgotten first, thermometers known to work and those holding a link aside).
    var devices: RecencyTable<BluetoothAddress, DeviceNote>
    /// Connection attempts and links (`maxConnecting`, `maxConnections`).
    var slots: ConnectionSlots
    /// Sessions waiting for an attempt: resumed with true when it is theirs.
    var slotWaiters: [BluetoothAddress: CheckedContinuation<Bool, Never>] = [:]
    /// Thermometers told they are left out (once each time they are).
    var leftOut: Set<BluetoothAddress> = []
    /// The service UUIDs that mark a thermometer, once (checked for every advertisement).
    private let thermometerServices: Set<BluetoothUUID>
    /// Sightings before this instant are reported again (a `scan` request asks for everyone).
    private var sightingsReportedSince: ContinuousClock.Instant?
    private var scanUntil: ContinuousClock.Instant?
    /// Whether discovery stays on all the time: ``ThermometerConfiguration/keepsScanning``
    /// until ``keepScanning(_:)`` says otherwise.
    private lazy var keepsScanning = configuration.keepsScanning
    private var scanReconciling = false
    private var scanDirty = false
    private var observer: UInt64?
    private var rescanner: Task<Void, Never>?
    /// Ends the current scan window.
    private var scanWindowEnd: LoopTimer?
    /// The scan watchdog's recovery ladder; nil when `scanWatchdog` is off.
    var ladder: RecoveryLadder?
    /// Fires when discovery will have heard nothing for the ladder's wait.
    var watchdogTimer: LoopTimer?
    /// Whether a recovery step is under way.
    var recovering = false
    var random = SystemRandomNumberGenerator()

    /// What the monitor remembers of a device it heard.
    struct DeviceNote {
        /// Its advertised name, remembered because BlueZ replaces it by the GAP name on connect.
        var name: String?
        /// When it was last reported seen.
        var lastSeenReport: ContinuousClock.Instant?
    }

    /// One subscribed characteristic.
    struct Stream {
        let address: BluetoothAddress
        let profile: any ThermometerProfile
        var lastValue: ContinuousClock.Instant
        /// Values delivered so far, so a read can tell whether any arrived while it ran.
        var received = 0
        /// The connect-time read's echo, dropped (``ConnectEcho``).
        var connectEcho = ConnectEcho()
    }

    /// Creates a monitor; `report` is called on the connection's executor.
    public init(
        central: CentralManager, configuration: ThermometerConfiguration = ThermometerConfiguration(),
        log: Log, report: @escaping @Sendable (SensorEvent) -> Void
    ) {
        self.central = central
        self.configuration = configuration
        self.log = log
        self.report = report
        devices = RecencyTable(capacity: configuration.maxDevices)
        slots = ConnectionSlots(
            maxConnecting: configuration.maxConnecting, maxConnections: configuration.maxConnections)
        thermometerServices = Set(configuration.profiles.allServiceUUIDs)
        ladder = configuration.scanWatchdog.map {
            RecoveryLadder(period: $0, adapterReset: configuration.adapterReset)
        }
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
        guard configuration.searches else { return }
        openScanWindow(configuration.discoveryWindow)
        rescanner = Task {
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
        rescanner?.cancel()
        scanWindowEnd?.cancel()
        watchdogTimer?.cancel()
        ladder = nil
        let tracked = Set(devices.keys).union(sessions.keys).union(slots.linked)
        sessions.values.forEach { $0.cancel() }
        sessions = [:]
        let characteristics = streams.keys.map { Characteristic(path: $0, uuid: nil, flags: [], service: $0) }
        streams = [:]
        let links = await central.connectedDevicePaths().compactMap { path in
            path.deviceAddress.flatMap { tracked.contains($0) ? Peripheral(address: $0, path: path, name: nil) : nil }
        }
        for waiter in slotWaiters.values { waiter.resume(returning: false) }
        slotWaiters = [:]
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

    /// Scans for `duration` even when every thermometer is connected (for `blectl scan`).
    public func scan(for duration: Duration) async {
        // Everyone in range is reported again in this window, not only newcomers.
        sightingsReportedSince = .now
        openScanWindow(duration)
        try? await central.executor.sleep(for: duration)
    }

    /// Keeps our scan on for at least `duration` (paused only while connecting).
    func openScanWindow(_ duration: Duration) {
        let end = ContinuousClock.now + duration
        if let until = scanUntil, until >= end { return }
        scanUntil = end
        reconcileScan()
        // One timer for the latest window (each new thermometer opens one).
        scanWindowEnd?.cancel()
        scanWindowEnd = central.executor.schedule(after: duration) { [weak self] in
            self?.assumeIsolated { $0.reconcileScan() }
        }
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
            devices.modify(address) { $0.lastSeenReport = nil }
            report(.peripheralLost(address))
        case .valueUpdated(let path, let bytes):
            deliver(path, bytes)
        case .discovering(let on):
            if on { armScanWatchdog() }
        case .heardAgain:
            heardAgain()
        case .disconnected, .servicesChanged, .advertised:
            break  // sessions wait on the central's state for these; adverts are another monitor's
        }
    }

    private func discovered(_ discovery: Discovery) {
        let address = discovery.peripheral.address
        let advertisement = discovery.advertisement
        var note = devices[address] ?? DeviceNote()
        if let name = Self.advertisedName(
            in: discovery, known: note.name, connected: discovery.isConnected, configured: configuration.names)
        {
            note.name = name
        }
        let isThermometer = configuration.searches && (isThermometer(advertisement) || isTracked(address))
        let announce = shouldReportSighting(&note)
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

    /// Whether a sighting is due (RSSI updates come often: at most one per `seenReportInterval`).
    private func shouldReportSighting(_ note: inout DeviceNote) -> Bool {
        let now = ContinuousClock.now
        if let last = note.lastSeenReport, now - last < configuration.seenReportInterval,
            sightingsReportedSince.map({ last >= $0 }) ?? true
        {
            return false
        }
        note.lastSeenReport = now
        return true
    }

    /// Keeps what is known of a device as the most recently seen; when the table is full, the
    /// device unseen longest is forgotten: one that is no thermometer if there is any, else a
    /// thermometer's, whose session ends too. Thermometers known to work and those holding a
    /// link are kept.
    func remember(_ address: BluetoothAddress, _ note: DeviceNote) {
        let kept = { (address: BluetoothAddress) in
            self.slots.known.contains(address) || self.slots.connecting.contains(address)
                || self.slots.linked.contains(address)
        }
        let evicted =
            devices.touch(address, note) { address, _ in kept(address) || sessions[address] != nil }
            ?? devices.evictIfFull { address, _ in kept(address) }
        guard let evicted else { return }
        let forgotten = evicted.key
        awaitingDevice.remove(forgotten)
        sessions.removeValue(forKey: forgotten)?.cancel()
        sessionTokens[forgotten] = nil
        slotWaiters.removeValue(forKey: forgotten)?.resume(returning: false)
        wake(slots.release(forgotten))
    }

    /// The name a discovery teaches about what a thermometer advertises, if any.
    ///
    /// BlueZ's `Name` is the advertised name only while the device is heard advertising:
    /// once connected it becomes the GAP name ("BlueZ 5.66" on a Pi), which BlueZ caches
    /// and shows again on devices it restores at start-up, before any advertisement (no
    /// RSSI). An advertisement without its scan response shows the cached name too, so a
    /// configured name, once heard, is kept.
    static func advertisedName(
        in discovery: Discovery, known: String?, connected: Bool, configured: [String]
    ) -> String? {
        guard let name = discovery.advertisement.localName, discovery.rssi != nil, !connected else { return nil }
        if let known, configured.contains(known), !configured.contains(name) { return nil }
        return name
    }

    private func isThermometer(_ advertisement: AdvertisementData) -> Bool {
        if let name = advertisement.localName, configuration.names.contains(name) { return true }
        return advertisement.serviceUUIDs.contains { thermometerServices.contains($0) }
    }

    /// Links left up (by us before a restart, or by another client) to devices
    /// that serve a thermometer profile: BlueZ shows them with their GAP name,
    /// so they are recognised by their services.
    private func adoptConnectedThermometers() {
        let serviceUUIDs = Set(configuration.profiles.allServiceUUIDs.map(\.uuidString))
        for path in central.assumeIsolated({ $0.connectedDevicePaths() }) {
            guard let address = path.deviceAddress, !isTracked(address) else { continue }
            let services = central.assumeIsolated { $0.mirror { $0.services(of: path) } }
            guard services.contains(where: { serviceUUIDs.contains($0.uuid) }) else { continue }
            remember(address, devices[address] ?? DeviceNote())
            startSession(address)
        }
    }

    private func startSession(_ address: BluetoothAddress) {
        guard sessions[address] == nil else { return }
        nextSessionToken += 1
        let token = nextSessionToken
        sessionTokens[address] = token
        sessions[address] = Task { await runSession(address, token: token) }
        // A thermometer to follow: devices are expected from now on.
        armScanWatchdog()
    }

    // MARK: Values

    func deliver(_ path: BlueZPath, _ bytes: [UInt8]) {
        // One lookup, in place, no allocation: this runs for every notification.
        let now = ContinuousClock.now
        guard
            let (stream, echo) = streams.withValue(
                forKey: path,
                {
                    $0.lastValue = now
                    $0.received &+= 1
                    return ($0, $0.connectEcho.isEcho(bytes, at: now))
                })
        else { return }
        // It still counts as data for the watchdog and for a read running meanwhile.
        guard !echo else { return }
        let name = devices[stream.address]?.name
        switch stream.profile.decode(bytes) {
        case .success(let measurement): report(.reading(stream.address, name: name, measurement))
        case .failure(let error):
            log.warning("bad value from \(stream.address): \(error)")
            report(.readingError(stream.address, name: name, error))
        }
    }

    // MARK: Scanning

    /// Keeps discovery on all the time, or back to windows (advertising sensors are heard
    /// passively, through an advertisement monitor).
    public func keepScanning(_ on: Bool) {
        guard on != keepsScanning else { return }
        keepsScanning = on
        reconcileScan()
    }

    /// Brings our scan in line with what is needed, one change at a time.
    func reconcileScan() {
        guard !scanReconciling else {
            scanDirty = true
            return
        }
        scanReconciling = true
        Task {
            repeat {
                scanDirty = false
                let wanted = scanWanted()
                let scanning = await central.isScanning
                if wanted, !scanning {
                    try? await central.scanForPeripherals(matching: ScanFilter())
                } else if !wanted, scanning {
                    await central.stopScan()
                }
            } while scanDirty
            scanReconciling = false
        }
    }

    /// Whether our scan should be on: in a scan window, or while a thermometer is missing;
    /// paused while connects are under way (within a window for at most `scanPauseLimit`).
    private func scanWanted() -> Bool {
        guard central.assumeIsolated({ $0.state }) == .poweredOn else { return false }
        // Advertising sensors need discovery all the time: one window that never closes.
        let windowOpen = keepsScanning || scanUntil.map { $0 > .now } ?? false
        if let paused = connectPauseStarted {
            return windowOpen && ContinuousClock.now - paused >= configuration.scanPauseLimit
        }
        return windowOpen || (configuration.searches && (sessions.isEmpty || !awaitingDevice.isEmpty))
    }

    /// Counts a connect in: the first one pauses our scan, and the whole batch shares the
    /// pause. Soon after a pause, waits until `connectBatchWindow` after it, so that the
    /// thermometers heard in that time connect in one batch.
    func beginConnect() async {
        if connectsInFlight == 0, let ended = connectPauseEnded {
            try? await central.executor.sleep(until: ended + configuration.connectBatchWindow)
        }
        countConnectIn()
    }

    /// Counts a connect in, pausing our scan if it is the first (see ``beginConnect()``).
    func countConnectIn() {
        connectsInFlight += 1
        if connectPauseStarted == nil {
            connectPauseStarted = .now
            central.executor.schedule(after: configuration.scanPauseLimit) { [weak self] in
                self?.assumeIsolated { $0.reconcileScan() }
            }
        }
        reconcileScan()
    }

    /// Counts a connect out: the scan resumes when it was the last.
    func endConnect() {
        connectsInFlight -= 1
        if connectsInFlight == 0 {
            connectPauseStarted = nil
            connectPauseEnded = .now
        }
        reconcileScan()
    }
}
