public import BlectlProtocol
public import Central
public import ReadingHub
public import SensorModel
public import UnixSupport

/// Fills the gaps of memory-capable sensors from their memory and keeps their clocks set:
/// follows the hub's live readings, asks the ``MemoryScheduler`` when, downloads through
/// the thermometer monitor's connect slots, stores the records through the hub.
public actor SensorMemoryService {
    private let hub: Hub
    private let monitor: ThermometerMonitor
    private let settings: SensorMemorySettings
    private let log: Log
    private let clockSynchronized: @Sendable () -> Bool
    private var scheduler: MemoryScheduler
    private var statuses: [BluetoothAddress: SensorMemoryStatus] = [:]
    /// The drift before each sensor's clock was set, for records stamped before.
    private var earlierDrift: [BluetoothAddress: SensorClockSetting] = [:]
    private var tasks: [BluetoothAddress: Task<Void, Never>] = [:]
    /// The sensors whose task is a clock visit, not a download.
    private var clockVisits: Set<BluetoothAddress> = []
    /// The memory-capable sensors heard live since the start.
    private var known: [BluetoothAddress: KnownSensor] = [:]
    private var listener: Int?
    /// The live readings of memory-capable sensors, taken in order by one task (``start()``'s):
    /// not a task per reading, which costs an allocation each and, created from the hub's
    /// thread, ran at whatever priority was left (a test run of every suite starved it).
    private var heardReadings: AsyncStream<(BluetoothAddress, Reading)>.Continuation?
    private var follower: Task<Void, Never>?

    /// A service over `hub` and `monitor`; `clockSynchronized` tells whether the gateway's
    /// clock may be pushed to sensors (``SystemClock/isSynchronized()`` unless a test says).
    public init(
        hub: Hub, monitor: ThermometerMonitor, settings: SensorMemorySettings, log: Log,
        clockSynchronized: @escaping @Sendable () -> Bool = { SystemClock.isSynchronized() }
    ) {
        self.hub = hub
        self.monitor = monitor
        self.settings = settings
        self.log = log
        self.clockSynchronized = clockSynchronized
        scheduler = MemoryScheduler(settings: settings)
    }

    /// Starts following the hub's readings and adds the sensors' part to `status`.
    public func start() async {
        let (readings, heardReadings) = AsyncStream.makeStream(
            of: (BluetoothAddress, Reading).self, bufferingPolicy: .bufferingNewest(Self.followedReadings))
        self.heardReadings = heardReadings
        follower = Task { [weak self] in
            for await (address, reading) in readings { await self?.heard(address, reading) }
        }
        let settings = settings
        let registration = await hub.addListener { event in
            guard case .reading(let reading) = event, reading.source == .live,
                settings.isEnabled(for: reading.address),
                SensorMemoryProtocols.forMeasurement(reading.measurement) != nil
            else { return }
            heardReadings.yield((reading.address, reading))
        }
        listener = registration.id
        await hub.attach(memory: self)
        await monitor.keepClocks(self)
        await hub.addStatusContributor { [weak self] status in
            guard let self else { return }
            status.setSection(await self.status)
        }
    }

    /// Stops following and cancels the downloads under way (their slots are released).
    public func stop() async {
        if let listener { await hub.removeListener(listener) }
        await hub.sensorMemoryUnavailable(because: "blectld is stopping")
        heardReadings?.finish()
        await follower?.value
        for task in tasks.values { task.cancel() }
        for task in tasks.values { await task.value }
        tasks = [:]
    }

    /// The live readings waiting to be looked at, at most: the newest are kept (a sensor's
    /// next reading tells the same).
    static let followedReadings = 1024

    /// Every sensor's entry, by address.
    public var status: [SensorMemoryStatus] { statuses.keys.sorted().compactMap { statuses[$0] } }

    /// Waits for the downloads under way (tests).
    public func idle() async {
        while let task = tasks.values.first { await task.value }
    }

    private func heard(_ address: BluetoothAddress, _ reading: Reading) async {
        let memory = SensorMemoryProtocols.forMeasurement(reading.measurement)
        let sensor = KnownSensor(
            family: reading.measurement.profile, name: reading.name, model: memory?.model(of: reading.measurement),
            readsRecords: memory?.readsRecords ?? true)
        known[address] = sensor
        var previous: Timestamp?
        if sensor.readsRecords, !scheduler.knows(address) {
            let from = Timestamp(
                millisecondsSince1970: reading.time.millisecondsSince1970 - Int64(settings.lookback.components.seconds)
                    * 1000)
            previous = await hub.newestStoredReading(of: address, in: from..<reading.time)
        }
        guard let due = scheduler.heard(address, at: reading.time, previous: previous, fillsGaps: sensor.readsRecords)
        else { return }
        if due.clockOnly {
            tasks[address] = Task { await self.visitClock(address, sensor) }
            return
        }
        log.info("sensor \(address): reading its memory from \(Self.time(due.since))")
        tasks[address] = Task { await self.download(address, sensor, due) }
    }

    func download(_ address: BluetoothAddress, _ sensor: KnownSensor, _ due: MemoryScheduler.Download) async {
        var request = MemoryReadRequest(
            address: address, family: sensor.family, newerThan: due.since, skipping: due.skipping,
            setClock: due.setClock, gatewayClockSynchronized: due.setClock && clockSynchronized(),
            stallTimeout: settings.stallTimeout)
        request.model = sensor.model
        request.earlierDrift = earlierDrift[address]
        let (stream, continuation) = AsyncStream.makeStream(of: MemoryReadProgress.self)
        let storing = Task { await self.store(stream, address, name: sensor.name) }
        let result = await monitor.readMemory(request) { continuation.yield($0) }
        continuation.finish()
        let tally = await storing.value
        finish(address, result, tally)
    }

    /// The daily visit of a sensor whose clock no download has set for a day: connects, reads
    /// the drift and sets the clock, records none. Not made while the gateway's own clock is
    /// unsynchronised: it could set nothing, and the connection costs the sensor's battery.
    private func visitClock(_ address: BluetoothAddress, _ sensor: KnownSensor) async {
        clockVisits.insert(address)
        defer {
            clockVisits.remove(address)
            tasks[address] = nil
            scheduler.clockVisitEnded(address)
        }
        guard clockSynchronized() else {
            log.info("sensor \(address): its clock is due, but this machine's clock is not synchronised; not visited")
            return
        }
        log.info("sensor \(address): connecting to set its clock (a day since it was last set)")
        var request = MemoryReadRequest(
            address: address, family: sensor.family, newerThan: nil, setClock: true, gatewayClockSynchronized: true,
            stallTimeout: settings.stallTimeout)
        request.model = sensor.model
        request.clockOnly = true
        let result = await monitor.readMemory(request) { _ in }
        if case .failed(let why) = result.end { log.warning("sensor \(address): clock visit failed: \(why)") }
        var entry = statuses[address] ?? SensorMemoryStatus(address: address)
        entry.recordClock(drift: result.drift, outcome: result.clock, at: .now())
        statuses[address] = entry
        rememberDrift(address, result)
    }

    /// The setting a download or visit made, for the records the sensor stamped before it.
    /// One that found the clock right keeps the earlier setting: the records stamped before
    /// that one still carry its drift (and those since, none).
    private func rememberDrift(_ address: BluetoothAddress, _ result: MemoryReadResult) {
        guard let setting = result.setting else { return }
        if earlierDrift[address] != nil, abs(setting.drift) <= SensorClockSetting.negligibleDrift { return }
        earlierDrift[address] = setting
    }

    /// Stores the records as they come; returns (stored, duplicates, rejected).
    private func store(_ progress: AsyncStream<MemoryReadProgress>, _ address: BluetoothAddress, name: String?) async
        -> MemoryTally
    {
        var tally = MemoryTally()
        let latest = Timestamp.now().millisecondsSince1970 + 120_000
        for await step in progress {
            switch step {
            case .record(let record, let time) where time * 1000 > latest:
                tally.rejected += 1
                log.warning("sensor \(address): memory record \(record.number) is in the future (\(time)); rejected")
            case .record(let record, let time):
                let fate = await hub.recordFromMemory(
                    record.measurement, at: Timestamp(millisecondsSince1970: time * 1000), address: address, name: name)
                tally.count(fate)
            case .rejected(let error):
                tally.rejected += 1
                log.warning("sensor \(address): memory record rejected (\(error.kind.rawValue)): \(error.detail)")
            }
        }
        return tally
    }

    private func finish(_ address: BluetoothAddress, _ result: MemoryReadResult, _ tally: MemoryTally) {
        tasks[address] = nil
        let failed = if case .failed = result.end { true } else { false }
        scheduler.finished(
            address, interrupted: result.end.isInterrupted, lastNumber: result.lastNumber, failed: failed)
        var entry = statuses[address] ?? SensorMemoryStatus(address: address)
        entry.record(result, tally, at: .now())
        rememberDrift(address, result)
        statuses[address] = entry
        log.notice(
            "sensor \(address): memory download \(entry.lastResult ?? "-"): \(tally.stored) stored, "
                + "\(tally.duplicates) duplicates, \(tally.rejected) rejected")
    }
}

extension SensorMemoryService: SensorClockKeeper {
    /// A GATT device offering the Current Time Service connected: its clock is set by the
    /// downloads' rule (`sensor_clock_sync`, the gateway's clock synchronised).
    public func clockVisit(_ address: BluetoothAddress) async -> ClockVisit {
        let due = scheduler.clockDue(address, at: .now())
        return ClockVisit(setClock: due, gatewayClockSynchronized: due && clockSynchronized())
    }

    /// Records the drift and the setting in the device's `sensor_memory` entry.
    public func clockChecked(_ address: BluetoothAddress, drift: Int64?, outcome: ClockSetOutcome) async {
        var entry = statuses[address] ?? SensorMemoryStatus(address: address)
        entry.recordClock(drift: drift, outcome: outcome, at: .now())
        statuses[address] = entry
    }
}

extension SensorMemoryService: SensorMemoryControl {
    /// Reads the sensor's memory now (its clock set when `sensor_clock_sync` allows), or
    /// joins the download running, and returns its entry after it.
    public func downloadNow(_ address: BluetoothAddress) async throws(ErrorInfo) -> SensorMemoryStatus {
        // A clock visit under way is no download to join: the download follows it.
        if clockVisits.contains(address) { await tasks[address]?.value }
        if tasks[address] == nil {
            guard settings.isEnabled(for: address) else {
                throw ErrorInfo(.unavailable, "the memory of \(address) is not read (sensor_memory \(address) = off)")
            }
            guard let sensor = known[address] else {
                throw ErrorInfo(.notFound, "no memory-capable sensor \(address) was heard since blectld started")
            }
            guard sensor.readsRecords else {
                throw ErrorInfo(.unavailable, "\(address) keeps no records blectl reads (only its clock is set)")
            }
            guard let due = scheduler.requested(address, at: .now()) else {
                throw ErrorInfo(.internal, "the memory of \(address) is being read, but no download is known")
            }
            log.info("sensor \(address): reading its memory on request, from \(Self.time(due.since))")
            tasks[address] = Task { await self.download(address, sensor, due) }
        }
        await tasks[address]?.value
        return statuses[address] ?? SensorMemoryStatus(address: address)
    }

    private static func time(_ seconds: Int64) -> Timestamp { Timestamp(millisecondsSince1970: seconds * 1000) }
}

/// A memory-capable sensor heard live since the start.
struct KnownSensor: Sendable {
    /// The family it advertises as.
    var family: ProfileID
    var name: String?
    /// Its model as its readings name it: it picks the protocol where models differ.
    var model: String?
    /// Whether it keeps records (else a clock alone).
    var readsRecords = true
}

/// What a download's records became.
struct MemoryTally {
    var stored = 0
    var duplicates = 0
    var rejected = 0

    mutating func count(_ fate: Hub.MemoryRecordFate) {
        switch fate {
        case .stored: stored += 1
        case .duplicate, .noHistory: duplicates += 1
        }
    }
}

extension SensorMemoryStatus {
    /// Takes in one download's outcome.
    mutating func record(_ result: MemoryReadResult, _ tally: MemoryTally, at time: Timestamp) {
        downloads += 1
        lastDownload = time
        lastResult =
            switch result.end {
            case .finished: "finished"
            case .disconnected: "disconnected"
            case .stalled: "stalled"
            case .failed(let why): "failed: \(why)"
            }
        (stored, duplicates, rejected) = (tally.stored, tally.duplicates, tally.rejected)
        let (seconds, attoseconds) = result.connectedFor.components
        connectedSeconds = Double(seconds) + Double(attoseconds) / 1e18
        recordClock(drift: result.drift, outcome: result.clock, at: time)
    }

    /// Takes in a clock's drift as read (nil: not read) and what was done to it.
    mutating func recordClock(drift: Int64?, outcome: ClockSetOutcome, at time: Timestamp) {
        if let drift { clockDriftSeconds = drift }
        switch outcome {
        case .notAsked: break
        case .set:
            clockSet = time
            clockResult = "set"
        case .gatewayUnsynchronized: clockResult = "gateway-unsynchronized"
        case .refused(let why): clockResult = "refused: \(why)"
        }
    }
}
