import BlectlProtocol
import SensorModel
import ReadingHub
import ConcurrencySupport
import UnixSupport

/// The MQTT output's engine, on its own event loop: the connection and its retries, the
/// position the broker acknowledged, the backlog read back from the history, discovery.
///
/// Readings go out in `seq` order. Live ones come from the hub through a ``Handoff``; any
/// gap (the broker was away, blectld restarted, the handoff overflowed) is read back from
/// the hub's history in pages. Only a PUBACK moves the acknowledged position.
final class Publisher: @unchecked Sendable {
    // @unchecked Sendable: every mutable property is confined to `loop` (other threads hop
    // onto it with `execute`); `handoff` and `snapshot` lock what they share.
    let configuration: MQTTOutput.Configuration
    let password: String?
    let loop: EventLoop
    let log: Log
    let topics: Topics
    let discovery: DiscoveryBuilder
    let handoff: Handoff
    let snapshot: Locked<MQTTStatus>
    let position: AckPosition

    var hub: Hub?
    var connection: MosquittoConnection?
    var state = MQTTStatus.State.disconnected
    var stopping: (() -> Void)?
    var stopped = false

    /// The highest `seq` acknowledged with every one before it.
    var acked: UInt64 = 0
    /// The highest `seq` handed to the connection (or skipped).
    var published: UInt64 = 0
    /// The highest `seq` the hub has numbered.
    var newest: UInt64 = 0
    /// Live events after `published`, in order.
    var queue = EventQueue()
    var pageRequested = false
    /// Messages the broker has not acknowledged yet: message id → `seq`.
    var outstanding: [Int32: UInt64] = [:]
    var devices: [BluetoothAddress: KnownDevice] = [:]
    /// When the advertising sensors' reception was last read from `status`, and whether a read is on its way.
    var receptionRead: (at: ContinuousClock.Instant?, pending: Bool) = (nil, false)
    /// The next read of the adapters, and what this connection published of them last.
    var adaptersTimer: LoopTimer?
    var adaptersPublished: [UInt8]?

    var delay: Duration
    var retryTimer: LoopTimer?
    var answerTimer: LoopTimer?
    var persistTimer: LoopTimer?
    var storedPosition: UInt64?
    var positionError: SystemError?
    var dropLogTimer: LoopTimer?
    var unloggedDrops: UInt64 = 0
    var counters = (dropped: UInt64(0), acknowledged: UInt64(0), attempts: UInt64(0), refused: UInt64(0))
    var reason: String? = "not connected yet"
    var since = Timestamp.now()
    var lastError: (message: String, time: Timestamp)?

    /// The longest wait for CONNACK after the connection is made.
    static let answerTimeout: Duration = .seconds(10)
    /// How long a stop waits for outstanding acknowledgements.
    static let stopAckWait: Duration = .milliseconds(500)

    init(configuration: MQTTOutput.Configuration, sensors: SensorCatalog, password: String?, log: Log) {
        self.configuration = configuration
        self.password = password
        self.log = log
        loop = EventLoop(label: "blectl-mqtt")
        topics = Topics(
            prefix: configuration.topicPrefix, discoveryPrefix: configuration.discoveryPrefix,
            gateway: configuration.gateway)
        discovery = DiscoveryBuilder(topics: topics, configuration: configuration, sensors: sensors)
        handoff = Handoff(limit: 10_000)
        position = AckPosition(directory: configuration.stateDirectory)
        delay = configuration.reconnect.lowerBound
        snapshot = Locked(
            MQTTStatus(
                broker: configuration.broker.description, clientID: configuration.effectiveClientID,
                gateway: configuration.gateway, state: .disconnected, reason: "not connected yet", since: .now()))
    }

    // MARK: From other threads

    /// Takes an event from the hub (on the hub's thread; never blocks).
    func hand(_ item: Outgoing) {
        guard handoff.put(item) else { return }
        loop.execute { self.takeHandoff() }
    }

    /// Starts: loads the acknowledged position, then connects. `newest` is the hub's last `seq`.
    func start(hub: Hub, newest lastSeq: UInt64) {
        loop.execute { self.begin(hub: hub, newest: lastSeq) }
    }

    /// Says `offline`, waits a little for acknowledgements, stores the position and
    /// disconnects; `done` runs on the loop's thread.
    func stop(_ done: @escaping @Sendable () -> Void) {
        loop.execute { self.finish(done) }
    }

    // MARK: On the loop

    private func begin(hub: Hub, newest lastSeq: UInt64) {
        self.hub = hub
        newest = max(newest, lastSeq)
        var stored: UInt64?
        do {
            stored = try position.load()
        } catch {
            log.warning("MQTT: cannot read the acknowledged position (\(error)); starting from the newest reading")
        }
        // No position yet (MQTT newly configured): start from now, not from the whole history.
        acked = min(stored ?? newest, newest)
        published = acked
        if stored == nil { persist(durable: true) } else { storedPosition = stored }
        if newest > acked { log.info("MQTT: \(newest - acked) readings wait for the broker (after seq \(acked))") }
        boundBacklog()
        attempt()
    }

    private func takeHandoff() {
        let (events, newestHanded) = handoff.take()
        newest = max(newest, newestHanded)
        if state == .connected, !stopped {
            // Disconnected, the history keeps them; connected, the queue saves reading them back.
            for item in events where item.seq > published { queue.append(item) }
            if queue.count > 10_000 { queue.removeAll() }
            pump()
        } else {
            boundBacklog()
        }
        refreshStatus()
    }

    /// Publishes in `seq` order while the broker's window has room: the next live event,
    /// or a page from the history when the next one is not at hand.
    func pump() {
        guard state == .connected, !stopped else { return }
        boundBacklog()
        while outstanding.count < configuration.window {
            queue.dropFirst(while: { $0.seq <= published })
            if let next = queue.first, next.seq == published + 1 {
                queue.removeFirst()
                guard publish(next) else { return }
                continue
            }
            if newest > published { requestPage() }
            return
        }
    }

    private func requestPage() {
        guard !pageRequested, let hub else { return }
        pageRequested = true
        let since = published
        let limit = configuration.window * 10
        Task {
            let result = try? await hub.history(HistoryQuery(since: since, limit: limit))
            self.loop.execute { self.pageArrived(after: since, result) }
        }
    }

    private func pageArrived(after since: UInt64, _ result: HistoryResult?) {
        pageRequested = false
        guard since == published, state == .connected else { return pump() }
        let end = queue.first?.seq ?? UInt64.max
        let events = (result?.events ?? []).compactMap { event in
            event.seq.flatMap { $0 > since && $0 < end ? Outgoing(event: event, seq: $0, rssi: nil) : nil }
        }
        if let first = events.first {
            if first.seq > published + 1 { skip(to: first.seq - 1, because: "no longer in the history") }
            queue.prepend(events)
        } else {
            // Nothing stored between `published` and the next event at hand.
            let missing = result == nil ? "the daemon keeps no history" : "no longer in the history"
            skip(to: min(end - 1, newest), because: missing)
        }
        pump()
        refreshStatus()
    }

    /// Keeps at most `mqtt_backlog_max` readings waiting: the oldest go, counted.
    private func boundBacklog() {
        let bound = UInt64(configuration.backlogMax)
        guard newest > published, newest - published > bound else { return }
        skip(to: newest - bound, because: "over mqtt_backlog_max (\(bound))")
    }

    /// Gives up the readings up to `seq`: counted, and logged at most once a minute.
    func skip(to seq: UInt64, because why: String) {
        guard seq > published else { return }
        let count = seq - published
        published = seq
        counters.dropped += count
        outstandingChanged()
        unloggedDrops += count
        guard dropLogTimer == nil else { return }
        log.warning("MQTT: dropped \(unloggedDrops) readings from the backlog: \(why)")
        unloggedDrops = 0
        dropLogTimer = loop.schedule(after: .seconds(60)) { [unowned self] in
            dropLogTimer = nil
            if unloggedDrops > 0 {
                log.warning("MQTT: dropped \(unloggedDrops) more readings from the backlog in the last minute")
                unloggedDrops = 0
            }
        }
    }

    /// Publishes one reading or reading error; false when the connection refused it.
    private func publish(_ item: Outgoing) -> Bool {
        guard let connection else { return false }
        let deviceID = item.event.address.map(Topics.deviceID) ?? ""
        let topic: String
        let payload: [UInt8]
        var retain = false
        switch item.event {
        case .reading(let reading) where reading.source == .memory:
            // Not the device's state: Home Assistant's state stays the newest live value.
            topic = topics.memory(deviceID)
            payload = Payload.state(reading, gateway: configuration.gateway, rssi: nil)
        case .reading(let reading):
            announce(reading)
            receptionDue(reading.address)
            topic = reading.measurement.probe.map { topics.state(deviceID, probe: $0) } ?? topics.state(deviceID)
            payload = Payload.state(reading, gateway: configuration.gateway, rssi: item.rssi)
            retain = configuration.retainState
        case .readingError(let failure):
            topic = topics.error(deviceID)
            payload = Payload.bytes(ErrorPayload(failure: failure, gateway: configuration.gateway))
        default:
            published = item.seq
            return true
        }
        switch connection.publish(topic: topic, payload: payload, qos: configuration.qos, retain: retain) {
        case .success(let mid):
            published = item.seq
            // QoS 0 has no acknowledgement: sent is as far as it goes.
            if configuration.qos > 0 { outstanding[mid] = item.seq } else { outstandingChanged() }
            return true
        case .failure(let failure):
            log.warning("MQTT: cannot publish on \(topic): \(failure.description)")
            return false
        }
    }

    /// Publishes a device's discovery configs when it is new to this run or changed.
    private func announce(_ reading: Reading) {
        guard topics.discovers else { return }
        var device =
            devices[reading.address] ?? KnownDevice(address: reading.address, profile: reading.measurement.profile)
        let changed = device.note(reading)
        let expireAfter = discovery.expireAfter(device)
        if changed || device.needsAnnouncing(expireAfter: expireAfter) {
            publishRetained(discovery.deviceConfigs(device))
            device.announcedExpireAfter = .some(expireAfter)
        }
        devices[reading.address] = device
    }

    /// Reads the advertising sensors' reception from `status` when a reading comes and it was
    /// last read a minute ago, or a few seconds ago for a device not yet seen in one: driven by
    /// readings, so a gateway hearing nothing reads nothing.
    private func receptionDue(_ address: BluetoothAddress) {
        guard !receptionRead.pending, let hub else { return }
        let now = ContinuousClock.now
        if let last = receptionRead.at {
            let checked = devices[address]?.receptionChecked ?? true
            guard now - last >= (checked ? Self.receptionPeriod : Self.receptionFirstDelay) else { return }
        }
        receptionRead = (now, true)
        let asked = Array(devices.keys)
        Task {
            let sensors = await hub.status().section(AdvertisementStatus.self)?.sensors ?? []
            self.loop.execute { self.receptionArrived(sensors, asked: asked) }
        }
    }

    /// How often each advertising sensor's reception is published while it is heard.
    static let receptionPeriod: Duration = .seconds(60)
    /// How soon after a new device's first reading its reception is read.
    static let receptionFirstDelay: Duration = .seconds(2)

    /// Publishes the reception of every advertising sensor with readings published (retained:
    /// Home Assistant shows it as soon as it subscribes), and its diagnostic entity's config
    /// the first time; `asked` are the devices known when `status` was asked for.
    private func receptionArrived(_ sensors: [AdvertisementStatus.Sensor], asked: [BluetoothAddress]) {
        receptionRead.pending = false
        for address in asked { devices[address]?.receptionChecked = true }
        guard state == .connected, !stopped, let connection else { return }
        for sensor in sensors where sensor.ratioLastHour != nil {
            guard var device = devices[sensor.address] else { continue }
            if !device.countsReception, topics.discovers {
                device.countsReception = true
                devices[sensor.address] = device
                publishRetained(discovery.deviceConfigs(device))
            }
            let topic = topics.reception(Topics.deviceID(sensor.address))
            let payload = Payload.bytes(ReceptionPayload(sensor: sensor, gateway: configuration.gateway))
            if case .failure(let failure) = connection.publish(
                topic: topic, payload: payload, qos: configuration.qos, retain: true)
            {
                log.warning("MQTT: cannot publish on \(topic): \(failure.description)")
            }
        }
    }

    /// The gateway's config and every known device's: on connecting, and when Home
    /// Assistant says it is online again.
    func announceEverything() {
        guard topics.discovers else { return }
        publishRetained([discovery.gatewayConfig()])
        for address in devices.keys.sorted() {
            guard let device = devices[address] else { continue }
            publishRetained(discovery.deviceConfigs(device))
        }
    }

    func publishRetained(_ messages: [(topic: String, payload: [UInt8])]) {
        for message in messages {
            if case .failure(let failure) = connection?.publish(
                topic: message.topic, payload: message.payload, qos: configuration.qos, retain: true)
            {
                log.warning("MQTT: cannot publish on \(message.topic): \(failure.description)")
            }
        }
    }

    /// Recomputes the acknowledged position and stores it within a second.
    func outstandingChanged() {
        acked = outstanding.values.min().map { $0 - 1 } ?? published
        guard acked != storedPosition, persistTimer == nil else { return }
        persistTimer = loop.schedule(after: .seconds(1)) { [unowned self] in
            persistTimer = nil
            persist(durable: false)
        }
    }

    /// Writes the acknowledged position (durable at shutdown; otherwise the next writeback
    /// takes it: a power cut may cost a few seconds of duplicates, never a loss).
    func persist(durable: Bool) {
        guard acked != storedPosition || durable else { return }
        do {
            try position.store(acked, durable: durable)
            storedPosition = acked
            positionError = nil
        } catch {
            // Once per new error, not every second.
            if positionError != error { log.warning("MQTT: cannot store the acknowledged position: \(error)") }
            positionError = error
        }
    }

    /// Updates the status others read. It runs for every batch handed over and every
    /// acknowledgment: the fields that never change (broker, client id, gateway, set in
    /// `init`) are left as they are rather than written out again each time.
    func refreshStatus() {
        let (state, reason, since, backlog) = (state, reason, since, newest > acked ? newest - acked : 0)
        let (lastError, acked, counters) = (lastError, acked, counters)
        snapshot.withLock { status in
            status.state = state
            status.reason = reason
            status.since = since
            status.lastError = lastError?.message
            status.lastErrorTime = lastError?.time
            status.ackedSeq = acked
            status.backlog = backlog
            status.dropped = counters.dropped
            status.published = counters.acknowledged
            status.connectAttempts = counters.attempts
        }
    }
}
