public import BlectlProtocol
public import SensorModel

extension Hub {
    /// Daemon and adapter state, the connected thermometers with their latest readings, and
    /// the sections the outputs add (the history store's state).
    public func status() async -> StatusResult {
        var status = coreStatus()
        for contribute in statusContributors { await contribute(&status) }
        return status
    }

    /// The hub's own part of `status`, without waiting for any output.
    public func coreStatus() -> StatusResult {
        let connected = table.connected.map { record in
            ConnectedPeripheral(
                address: record.address, name: record.name,
                since: record.connectedSince ?? record.lastSeen, lastReading: record.latestReading)
        }
        var status = StatusResult(
            adapter: adapterName, state: adapterState, connected: connected, lastSeq: lastSeq, started: started)
        status.reason = adapterReason
        if !calibrations.isEmpty {
            let offsets = calibrations.flatMap { address, calibration in
                calibration.offsets.present.map { offset in
                    CalibrationOffset(
                        address: address, quantity: Calibration.name(of: offset.quantity),
                        offset: offset.value)
                }
            }
            status.setSection(offsets.sorted { ($0.address, $0.quantity) < ($1.address, $1.quantity) })
        }
        return status
    }

    /// The last signal strength heard from `address` (dBm), if any.
    public func rssi(of address: BluetoothAddress) -> Int? {
        table[address]?.rssi
    }

    /// The peripheral table: connected first, then thermometers, then by signal strength.
    public func peripherals() -> [PeripheralInfo] {
        table.records.values.map { record in
            var info = PeripheralInfo(
                address: record.address, name: record.name, rssi: record.rssi, thermometer: record.isThermometer,
                connected: record.connectedSince != nil, lastSeen: record.lastSeen)
            if let latest = record.latestReading {
                let family = sensors.family(of: latest.measurement.profile)
                info.profile = latest.measurement.profile.rawValue
                info.family = family.name
                info.model = latest.model ?? family.modelLabel
                info.manufacturer = family.manufacturer
            }
            return info
        }.sorted(by: Self.displayOrder)
    }

    private static func displayOrder(_ lhs: PeripheralInfo, _ rhs: PeripheralInfo) -> Bool {
        if lhs.connected != rhs.connected { return lhs.connected }
        if lhs.thermometer != rhs.thermometer { return lhs.thermometer }
        if lhs.rssi != rhs.rssi { return (lhs.rssi ?? Int.min) > (rhs.rssi ?? Int.min) }
        return lhs.address < rhs.address
    }

    /// Scans for `timeout` (or the default), then returns the peripherals seen since the
    /// scan began, plus the connected ones.
    ///
    /// Requests that overlap share the central's one discovery session, which stays open
    /// for the longest of them; each returns at its own timeout with what was seen so far.
    public func scan(timeout: Duration?) async throws(ErrorInfo) -> [PeripheralInfo] {
        guard let central else {
            throw ErrorInfo(.unavailable, "the daemon has no Bluetooth central")
        }
        if [.poweredOff, .unsupported, .unauthorized].contains(adapterState) {
            throw ErrorInfo(.unavailable, adapterReason ?? "adapter \(adapterName ?? "?") is \(adapterState.rawValue)")
        }
        let duration = min(max(timeout ?? limits.defaultScan, .zero), limits.maxScan)
        let startedAt = now()
        // In a task of its own, so that a request whose client went away stops waiting at once.
        guard let result = await executor.run(until: nil, { try await central.scanHearings(for: duration) }) else {
            throw ErrorInfo(.unavailable, "the request was cancelled")
        }
        let hearings: [BluetoothAddress: [AdapterHearing]]
        switch result {
        case .failure(let error): throw ErrorInfo(describing: error)
        case .success(let heard): hearings = heard
        }
        return peripherals().compactMap { peripheral in
            guard peripheral.connected || peripheral.lastSeen >= startedAt else { return nil }
            return hearings.isEmpty ? peripheral : peripheral.heard(by: hearings[peripheral.address] ?? [])
        }
    }

    /// A current temperature from each connected thermometer and each sensor heard
    /// broadcasting matching `selector` (an address or a name; all when nil), waiting up to
    /// `timeout` for one.
    ///
    /// Each thermometer is read afresh when the central can; otherwise its latest
    /// reading is reported with its age. A broadcasting sensor's latest reading is its
    /// current value (`fresh`) as long as it is heard: a lost one leaves the table. With
    /// none of those, the latest readings of matching devices are reported; with none of
    /// those either, the reply is an error.
    public func read(matching selector: String?, timeout: Duration?) async throws(ErrorInfo) -> [ReadingReport] {
        let requestedAt = now()
        let wait = min(max(timeout ?? limits.defaultReadTimeout, .zero), limits.maxReadTimeout)
        let deadline = ContinuousClock.now + wait
        _ = await self.wait(until: deadline) {
            !self.connectedThermometers(matching: selector).isEmpty || !self.broadcasting(matching: selector).isEmpty
                || self.unreadable(selector, since: requestedAt) != nil
        }
        let targets = connectedThermometers(matching: selector)
        var reports = broadcasting(matching: selector).map { report($0, fresh: true) }
        guard !targets.isEmpty || !reports.isEmpty else {
            return try storedReports(matching: selector, waited: wait)
        }
        await withTaskGroup(of: ReadingReport?.self) { group in
            for address in targets {
                group.addTask { await self.report(for: address, since: requestedAt, deadline: deadline) }
            }
            for await report in group {
                if let report { reports.append(report) }
            }
        }
        guard !reports.isEmpty else {
            throw ErrorInfo(.timeout, "no temperature arrived within \(Self.format(wait))")
        }
        // By address, then probe.
        return reports.sorted {
            ($0.address, $0.reading.measurement.probe ?? 0) < ($1.address, $1.reading.measurement.probe ?? 0)
        }
    }

    /// One thermometer's temperature: read now (the reading reaches the hub as every reading
    /// does), else the newest stored one, else the first to arrive before `deadline`.
    private func report(for address: BluetoothAddress, since requestedAt: Timestamp, deadline: ContinuousClock.Instant)
        async
        -> ReadingReport?
    {
        if let central {
            let readDeadline = min(deadline, ContinuousClock.now + limits.freshRead)
            _ = await executor.run(until: readDeadline) { try await central.readNow(address: address) }
            _ = await wait(until: readDeadline) {
                self.table[address]?.latestReading.map { $0.time >= requestedAt } ?? false
            }
        }
        _ = await wait(until: deadline) { self.table[address]?.latestReading != nil }
        return table[address]?.latestReading.map { report($0, fresh: $0.time >= requestedAt) }
    }

    /// `fresh`: the reading arrived after the request did (a stored one is not fresh).
    private func report(_ reading: Reading, fresh: Bool) -> ReadingReport {
        let milliseconds = max(0, now().millisecondsSince1970 - reading.time.millisecondsSince1970)
        return ReadingReport(reading, fresh: fresh, ageSeconds: Double(milliseconds) / 1000)
    }

    private func storedReports(matching selector: String?, waited: Duration) throws(ErrorInfo) -> [ReadingReport] {
        let stored = table.latestReadings { matches(selector, address: $0.address, name: $0.name) }
        if !stored.isEmpty { return stored.map { report($0, fresh: false) } }
        if let selector, resolve(selector) == nil {
            throw ErrorInfo(.notFound, "no thermometer matches \"\(selector)\"")
        }
        if let failure = unreadable(selector, since: nil) {
            throw ErrorInfo(
                .unavailable, "\(failure.address) sends values that cannot be read: \(failure.error)")
        }
        // Nothing connected because Bluetooth is not there: say so, not "wait longer".
        if let adapterReason { throw ErrorInfo(.unavailable, adapterReason) }
        throw ErrorInfo(.timeout, "no thermometer connected within \(Self.format(waited))")
    }

    /// The newest reading error of the one device `selector` names, when it came after
    /// `since` and the device has no reading since it: why `read` has no value to give.
    private func unreadable(_ selector: String?, since: Timestamp?) -> ReadingFailure? {
        guard let selector, let address = resolve(selector), let record = table[address],
            let failure = record.latestFailure, failure.time >= since ?? failure.time,
            (record.latestReading?.time).map({ $0 < failure.time }) ?? true
        else { return nil }
        return failure
    }

    private func broadcasting(matching selector: String?) -> [Reading] {
        table.broadcasting.filter { matches(selector, address: $0.address, name: $0.name) }.flatMap(\.currentReadings)
    }

    private func connectedThermometers(matching selector: String?) -> [BluetoothAddress] {
        table.connected.filter { matches(selector, address: $0.address, name: $0.name) }.map(\.address)
    }

    /// Whether a device is the one `selector` names: its address, or its name, in any case.
    func matches(_ selector: String?, address: BluetoothAddress, name: String?) -> Bool {
        guard let selector else { return true }
        return BluetoothAddress(selector) == address || name?.lowercased() == selector.lowercased()
    }

    /// The address of the known device `selector` names, if any.
    func resolve(_ selector: String) -> BluetoothAddress? {
        table.records.values.first { matches(selector, address: $0.address, name: $0.name) }?.address
    }

    static func format(_ duration: Duration) -> String {
        let seconds = duration.seconds
        return seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }
}

extension Hub {
    /// Waits until `condition` holds or `deadline` passes; returns whether it holds.
    func wait(until deadline: ContinuousClock.Instant, for condition: @escaping () -> Bool) async -> Bool {
        await waiters.wait(timeout: deadline - .now) { condition() ? true : nil } ?? false
    }
}

extension ErrorInfo {
    /// An error from the Bluetooth side as a reply error: an ``ErrorInfo`` as it is,
    /// anything else as `unavailable` with its description.
    init(describing error: any Error) {
        if let info = error as? ErrorInfo {
            self = info
        } else {
            self.init(.unavailable, String(describing: error))
        }
    }
}
