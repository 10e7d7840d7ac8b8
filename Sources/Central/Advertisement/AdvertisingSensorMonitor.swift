import BlueZClient
public import SensorModel
import ThermometerProfiles
import ConcurrencySupport
public import UnixSupport

/// Reads sensors that broadcast their measurements in advertisements (every format of the
/// ``AdvertisementRegistry``), beside the GATT thermometers' monitor, and reports them the
/// same way.
///
/// Not BlueZ's `AdvertisementMonitor1`: passive scanning registers those through the BlueZ
/// client layer on this monitor's behalf.
///
/// It follows the central's ``CentralEvent/advertised(_:_:_:)`` events, heard through
/// discovery kept on by the thermometer monitor (active scanning, see
/// ``ThermometerConfiguration/keepsScanning``) or through an advertisement monitor registered
/// with BlueZ (passive scanning, ``AdvertisementConfiguration/scanMode``). For each advertisement it decodes only the
/// fields that changed, drops the measurements heard before by the sensor's own counter,
/// counts the ones it missed, and learns how long each sensor may stay silent before it is
/// reported lost. It runs on the D-Bus connection's executor, for every advertisement of
/// every sensor in range: the work per advertisement is a few dictionary lookups.
public actor AdvertisingSensorMonitor {
    /// The central underneath.
    public nonisolated let central: CentralManager
    /// The central's executor: the monitor runs on the D-Bus connection's event loop.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { central.unownedExecutor }

    let configuration: AdvertisementConfiguration
    let report: @Sendable (SensorEvent) -> Void
    let log: Log
    /// Turns the thermometer monitor's continuous discovery on (active scanning) or off.
    let discovery: @Sendable (Bool) -> Void
    /// The scanning in use, and the advertisement monitor registered for passive scanning.
    var scan = ScanState()
    private var decoder: AdvertisementDecoder
    private var sensors: RecencyTable<BluetoothAddress, SensorTrack>
    /// The fields some profile reads, as BlueZ keys them: checked before anything else.
    private let serviceFields: [String: AdvertisementField]
    private let manufacturerFields: Set<UInt16>
    /// Whether some profile reads manufacturer data under any company id, by local name.
    private let readsNamedManufacturerData: Bool
    /// The fields a format reads together with another (SwitchBot's), and that other.
    private let companions: [AdvertisementField: AdvertisementField]
    private var observer: UInt64?
    private var staleTimer: LoopTimer?
    private var staleTimerDue: ContinuousClock.Instant?
    private var counts = AdvertisementStatistics()

    /// Creates a monitor; `report` is called on the connection's executor.
    ///
    /// - Parameter discovery: called with true when advertisements are to be heard through
    ///   discovery kept on (active scanning), false when an advertisement monitor hears them
    ///   (passive); on the connection's executor.
    public init(
        central: CentralManager, configuration: AdvertisementConfiguration = AdvertisementConfiguration(), log: Log,
        discovery: @escaping @Sendable (Bool) -> Void = { _ in }, report: @escaping @Sendable (SensorEvent) -> Void
    ) {
        self.central = central
        self.configuration = configuration
        self.log = log
        self.discovery = discovery
        self.report = report
        decoder = AdvertisementDecoder(registry: configuration.registry, keys: configuration.keys)
        sensors = RecencyTable(capacity: configuration.maxDevices)
        serviceFields = Dictionary(
            configuration.registry.serviceDataUUIDs.map { ($0.uuidString, .serviceData($0)) },
            uniquingKeysWith: { first, _ in first })
        manufacturerFields = Set(configuration.registry.manufacturerIDs)
        readsNamedManufacturerData = !configuration.registry.localNamePrefixes.isEmpty
        let registry = configuration.registry
        let fields =
            registry.serviceDataUUIDs.map(AdvertisementField.serviceData)
            + registry.manufacturerIDs.map(AdvertisementField.manufacturerData)
        companions = fields.reduce(into: [:]) { all, field in all[field] = registry.companion(of: field) }
    }

    /// Starts following the central's advertisements, and chooses the scanning (again
    /// whenever the adapter's state changes).
    public func start() async {
        observer = await central.addObserver { [weak self] event in
            switch event {
            case .advertised(let address, let path, let update):
                // Every advertisement: passed, not captured (no allocation per call).
                self?.assumeIsolated(passing: (address, path, update)) { $0.received($1.0, $1.1, $1.2, at: .now) }
            case .stateChanged, .adaptersChanged:
                self?.assumeIsolated { $0.chooseScanMode() }
            default:
                return
            }
        }
        chooseScanMode()
        // Nettle is loaded only now, and only when some sensor has a key.
        if !configuration.keys.isEmpty, let missing = AESCCM.unavailable {
            log.error("advertisements: \(missing); the sensors with keys cannot be read")
        }
    }

    /// Opens the advertisement source of `advert_source`, before ``start()``: under _auto_ a
    /// management socket that cannot be opened is one line in the log and BlueZ's signals.
    ///
    /// - Throws: ``CentralError/managementSocket(_:)`` under _mgmt_ when it cannot be opened.
    public func openSource() throws(CentralError) {
        guard configuration.source != .dbus else { return }
        let log = log
        let opened = central.assumeIsolated { central in
            Result { () throws(CentralError) in try central.listenToManagementSocket(log: log) }
        }
        do {
            try opened.get()
            log.info(
                "advertisements: heard through the kernel's management socket (advert_source = \(configuration.source.rawValue))"
            )
        } catch {
            guard configuration.source == .auto else { throw error }
            log.notice("advertisements: heard through D-Bus: \(error)")
        }
        let active = scan.inUse == .active
        central.assumeIsolated { $0.reportManagementAdvertisements(active) }
    }

    /// Stops following the central, and unregisters the advertisement monitor.
    public func shutdown() async {
        await central.closeManagementSocket()
        if let observer { await central.removeObserver(observer) }
        observer = nil
        staleTimer?.cancel()
        staleTimer = nil
        await stopPassiveScanning()
    }

    /// The counts so far and the sensors tracked now.
    public var statistics: AdvertisementStatistics {
        var result = counts
        result.scanMode = scan.inUse
        let now = ContinuousClock.now
        result.sensors = sensors.keys.sorted().compactMap { address in
            sensors[address].map { track in
                var sensor = AdvertisementStatistics.Sensor(
                    address: address, profile: track.profile, readings: track.readings,
                    lostPackets: track.lostPackets,
                    staleAfter: track.staleAfter(floor: configuration.staleAfter, margin: configuration.staleMargin),
                    lost: track.isLost)
                let reception = track.reception
                sensor.silentFor = max(.zero, now - track.lastHeard)
                sensor.interval = track.interval
                // Scanning passively, a sensor without a counter is heard only when its data changes.
                sensor.countedBy = reception.basis == .interval && scan.inUse != .active ? nil : reception.basis
                (sensor.received, sensor.missed) = (reception.received, reception.missed)
                (sensor.receivedLastHour, sensor.missedLastHour) = reception.lastHour(at: now)
                sensor.heardBy = track.hearing.map {
                    .init(
                        adapter: $0.path.adapterName, rssi: $0.rssi.map(Int.init),
                        silentFor: max(.zero, now - $0.lastHeard))
                }
                return sensor
            }
        }
        return result
    }

    // MARK: Advertisements

    /// One advertisement update of a device (see ``CentralEvent/advertised(_:_:_:)``).
    func received(
        _ address: BluetoothAddress, _ path: BlueZPath, _ update: AdvertisementUpdate, at now: ContinuousClock.Instant
    ) {
        guard configuration.devices.admits(address) else { return }
        // A device whose name a format reads manufacturer data by (Inkbird, ThermoPro): all
        // its manufacturer data is that format's, under whatever company id.
        let namedName =
            readsNamedManufacturerData && !update.manufacturerData.isEmpty
            ? (update.name ?? sensors[address]?.name ?? central.assumeIsolated { $0.deviceName(path) }).flatMap {
                configuration.registry.readsAnyManufacturerData(from: $0) ? $0 : nil
            } : nil
        guard namedName != nil || carriesReadableField(update) else { return }
        counts.advertisements += 1
        var track =
            sensors[address]
            ?? SensorTrack(name: update.name ?? central.assumeIsolated { $0.device(path)?.name }, heardAt: now)
        // A sensor heard by two adapters: the second report of one advertisement is an echo.
        let echo = track.isEcho(through: path, at: now)
        if !echo {
            track.heard(at: now, countsGaps: scan.inUse == .active)
            track.counted(through: path)
        }
        track.heard(through: path, rssi: update.rssi, at: now)
        if let name = update.name { track.name = name }
        for (uuid, bytes) in update.serviceData {
            guard let field = serviceFields[uuid] else { continue }
            let companion = companions[field]
            if case .manufacturerData(let company)? = companion, let other = update.manufacturerData[company],
                track.payload(.manufacturer(company)) != other
            {
                // Both fields of a pair changed: read once, with the manufacturer data below.
                if !echo { _ = track.payloadChanged(.service(uuid), bytes) }
                continue
            }
            consider(
                bytes, in: field, key: .service(uuid), name: track.name,
                companion: companionPayload(companion, update, track), from: address, &track, at: now, echo: echo)
        }
        if let name = namedName {
            considerNamed(update.manufacturerData, name: name, from: address, &track, at: now, echo: echo)
        } else {
            for (company, bytes) in update.manufacturerData where manufacturerFields.contains(company) {
                let field = AdvertisementField.manufacturerData(company)
                // The name too: some formats of a company id tell their models apart by it (Govee's
                // H5100 family reads six bytes only from a device named as one of its models).
                consider(
                    bytes, in: field, key: .manufacturer(company), name: track.name,
                    companion: companionPayload(companions[field], update, track), from: address, &track, at: now,
                    echo: echo)
            }
        }
        remember(address, track)
        armStaleTimer(track.deadline(floor: configuration.staleAfter, margin: configuration.staleMargin))
    }

    /// The payload of a field read together with another: in this update, or as last heard.
    private func companionPayload(
        _ field: AdvertisementField?, _ update: AdvertisementUpdate, _ track: SensorTrack
    ) -> [UInt8]? {
        switch field {
        case nil: return nil
        case .serviceData(let uuid)?:
            let key = uuid.uuidString
            return update.serviceData[key] ?? track.payload(.service(key))
        case .manufacturerData(let company)?:
            return update.manufacturerData[company] ?? track.payload(.manufacturer(company))
        }
    }

    private func carriesReadableField(_ update: AdvertisementUpdate) -> Bool {
        update.serviceData.keys.contains { serviceFields[$0] != nil }
            || update.manufacturerData.keys.contains { manufacturerFields.contains($0) }
    }

    /// The manufacturer data of a device whose format puts data where the company id goes:
    /// BlueZ keeps the entries of earlier advertisements under their old keys, so the current
    /// entry is the only one, or else the only one that changed since the last update (as
    /// Home Assistant picks it); with several changed (a first sighting) none is known current,
    /// and the next update tells.
    private func considerNamed(
        _ entries: [UInt16: [UInt8]], name: String, from address: BluetoothAddress, _ track: inout SensorTrack,
        at now: ContinuousClock.Instant, echo: Bool
    ) {
        // Another adapter's device object keeps entries of its own: its report tells nothing new.
        guard !echo else { return }
        let changed = track.manufacturerDataChanges(entries)
        guard let (company, bytes) = entries.count == 1 ? entries.first : changed else { return }
        let data = [UInt8(truncatingIfNeeded: company), UInt8(truncatingIfNeeded: company >> 8)] + bytes
        consider(
            bytes, in: .manufacturerData(company), key: .anyManufacturer, compared: data, name: name, from: address,
            &track, at: now)
    }

    /// Decodes one field's payload unless it is the one heard last (and no refresh is due),
    /// and reports what is new.
    ///
    /// - Parameters:
    ///   - compared: What is compared with the last payload of `key`, when not `bytes`.
    ///   - name: The device's name, for the formats that read manufacturer data by it or tell
    ///     their models apart by it.
    ///   - companion: The payload of the field read together with this one (SwitchBot's).
    ///   - echo: Whether this is another adapter's report of the advertisement heard last
    ///     (``SensorTrack/isEcho(through:at:)``): the payload is compared, not remembered, a
    ///     reading without a counter is dropped, and a counter a few steps back is a late report.
    private func consider(
        _ bytes: [UInt8], in field: AdvertisementField, key: FieldKey, compared: [UInt8]? = nil, name: String? = nil,
        companion: [UInt8]? = nil, from address: BluetoothAddress, _ track: inout SensorTrack,
        at now: ContinuousClock.Instant, echo: Bool = false
    ) {
        let changed = echo ? track.payload(key) != (compared ?? bytes) : track.payloadChanged(key, compared ?? bytes)
        let refreshDue = !echo && (track.lastReading.map { now - $0 >= configuration.unchangedRefresh } ?? true)
        guard changed || refreshDue else {
            counts.duplicates += 1
            return
        }
        switch decoder.decode(bytes, in: field, name: name, companion: companion, from: address) {
        case nil:
            return
        case .failure(let error)?:
            if !echo { reportError(error, from: address, in: field, track) }
        case .success(let reading)?:
            let admission =
                echo && reading.counter == nil
                ? .repeated
                : track.admit(
                    reading, at: now, payloadChanged: changed, minInterval: configuration.minInterval,
                    unchangedRefresh: configuration.unchangedRefresh, echo: echo)
            guard case .new(let lost) = admission else {
                counts.duplicates += 1
                return
            }
            if echo { _ = track.payloadChanged(key, compared ?? bytes) }
            counts.lostPackets += lost
            counts.readings += 1
            report(.reading(address, name: track.name, reading.measurement))
            // A device with several probes: one reading per probe, all of one advertisement.
            for probe in reading.probes {
                counts.readings += 1
                report(.reading(address, name: track.name, probe))
            }
            // A quantity left out as implausible is an error of its own, once per reading.
            for error in reading.dropped { reportError(error, from: address, in: field, track) }
        }
    }

    private func reportError(
        _ error: ReadingError, from address: BluetoothAddress, in field: AdvertisementField, _ track: SensorTrack
    ) {
        counts.errors += 1
        log.info("bad advertisement from \(address) (\(field)): \(error)")
        report(.readingError(address, name: track.name, error))
    }

    /// Keeps the sensor as the most recently heard; when the table is full the one unheard
    /// longest is forgotten.
    private func remember(_ address: BluetoothAddress, _ track: SensorTrack) {
        guard sensors.touch(address, track) != nil else { return }
        counts.forgotten += 1
    }

    // MARK: Staleness

    /// One timer, for the earliest a sensor can be lost: advertisements only push deadlines
    /// later, so the timer is not moved for them; when it fires early it is armed again.
    private func armStaleTimer(_ deadline: ContinuousClock.Instant) {
        if let due = staleTimerDue, due <= deadline { return }
        staleTimer?.cancel()
        staleTimerDue = deadline
        staleTimer = central.executor.schedule(after: max(.zero, deadline - .now)) { [weak self] in
            self?.assumeIsolated { $0.reportLost(at: .now) }
        }
    }

    /// Reports the sensors silent past their staleness as lost, and arms the timer for the next.
    func reportLost(at now: ContinuousClock.Instant) {
        staleTimerDue = nil
        staleTimer = nil
        var next: ContinuousClock.Instant?
        for address in sensors.keys {
            guard let track = sensors[address], !track.isLost else { continue }
            let deadline = track.deadline(floor: configuration.staleAfter, margin: configuration.staleMargin)
            guard deadline <= now else {
                next = min(next ?? deadline, deadline)
                continue
            }
            sensors.modify(address) { $0.markLost() }
            log.info("advertising sensor \(address) lost: nothing heard for \(now - track.lastHeard)")
            report(.peripheralLost(address))
        }
        if let next { armStaleTimer(next) }
    }
}
