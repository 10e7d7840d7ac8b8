import DBusCore

/// Discovery: sessions per client, filters, the scan, and what each advertisement does to
/// the device objects (bluetoothd 5.66's `btd_adapter_update_found_device`).
enum DiscoverySessions {
    static func startDiscovery(_ daemon: isolated Bluetoothd, adapter name: String, client: String) throws
        -> [DBusValue]
    {
        guard var adapter = daemon.adapters[name] else { throw BluetoothdError.doesNotExist }
        guard adapter.powered else { throw BluetoothdError.notReady }
        // Every client can only start one discovery.
        guard !adapter.clients.isDiscovering(client) else { throw BluetoothdError.busy }
        daemon.world.withState { $0.startDiscoveryCalls += 1 }
        // The kernel refused (mgmt Busy): bluetoothd drops the session it was starting.
        if daemon.world.withState({ FaultPlan.take(&$0.faults.startDiscoveryBusy, address: name) }) != nil {
            throw BluetoothdError.busy
        }
        adapter.clients.start(client)
        daemon.adapters[name] = adapter
        daemon.tasks.cancel("scan-stop:\(name)")
        if !adapter.discovering {
            // The reply goes first; the controller confirms, then Discovering=true.
            daemon.schedule("scan-start:\(name)", after: daemon.timings.discoveryStart) { daemon in
                beginScanning(daemon, name)
            }
        }
        return []
    }

    static func stopDiscovery(_ daemon: isolated Bluetoothd, adapter name: String, client: String) throws -> [DBusValue]
    {
        guard var adapter = daemon.adapters[name] else { throw BluetoothdError.doesNotExist }
        guard adapter.powered else { throw BluetoothdError.notReady }
        let inProgress =
            daemon.world.withState { FaultPlan.take(&$0.faults.stopDiscoveryInProgress, address: nil) } != nil
        guard adapter.clients.isDiscovering(client) else {
            throw inProgress ? BluetoothdError.inProgress : BluetoothdError.failed("No discovery started")
        }
        adapter.clients.stop(client)
        daemon.adapters[name] = adapter
        if !adapter.clients.anyDiscovering {
            // The controller's LE scan is disabled now (bluetoothd replies once it is).
            FaultActions.cureSilence(daemon, name, by: .restartDiscovery)
            daemon.schedule("scan-stop:\(name)", after: daemon.timings.discoveryStop) { daemon in
                endScanning(daemon, name)
            }
        }
        if inProgress { throw BluetoothdError.inProgress }
        return []
    }

    static func setDiscoveryFilter(
        _ daemon: isolated Bluetoothd, adapter name: String, client: String, _ value: DBusValue
    ) throws -> [DBusValue] {
        guard var adapter = daemon.adapters[name] else { throw BluetoothdError.doesNotExist }
        guard adapter.powered else { throw BluetoothdError.notReady }
        guard let entries = value.dictionaryEntries else { throw BluetoothdError.invalidArguments }
        adapter.clients.setFilter(try ClientDiscoveryFilter.parse(entries), for: client)
        daemon.adapters[name] = adapter
        return []
    }

    /// A client left the bus (`discovery_disconnect`).
    static func endDiscoveryClient(_ daemon: isolated Bluetoothd, _ client: String, adapter name: String) {
        guard var adapter = daemon.adapters[name] else { return }
        let hadSession = adapter.clients.isDiscovering(client)
        adapter.clients.remove(client)
        daemon.adapters[name] = adapter
        if hadSession {
            if !adapter.clients.anyDiscovering {
                FaultActions.cureSilence(daemon, name, by: .restartDiscovery)
                daemon.schedule("scan-stop:\(name)", after: daemon.timings.discoveryStop) { daemon in
                    endScanning(daemon, name)
                }
            }
        } else if !adapter.clients.anyDiscovering && adapter.powered {
            // A client that only set a filter leaves: bluetoothd "stops" the idle discovery
            // and announces Discovering=false again (seen at the end of the trace).
            daemon.change(adapter.path, BluetoothdAPI.adapter, [("Discovering", .boolean(false))])
        }
    }

    static func beginScanning(_ daemon: isolated Bluetoothd, _ name: String) {
        guard var adapter = daemon.adapters[name], adapter.powered, adapter.clients.anyDiscovering, !adapter.discovering
        else { return }
        adapter.discovering = true
        adapter.found = FoundDevices()
        daemon.adapters[name] = adapter
        daemon.change(adapter.path, BluetoothdAPI.adapter, [("Discovering", .boolean(true))])
        daemon.schedule("scan:\(name)") { daemon in await scan(daemon, name) }
    }

    /// The last session ended: found devices lose `RSSI`/`TxPower` (non-connectable temporary
    /// ones are removed at once), then `Discovering=false`.
    static func endScanning(_ daemon: isolated Bluetoothd, _ name: String) {
        guard var adapter = daemon.adapters[name], !adapter.clients.anyDiscovering else { return }
        daemon.tasks.cancel("scan-start:\(name)")
        daemon.tasks.cancel("scan:\(name)")
        let wasDiscovering = adapter.discovering
        let found = adapter.found.mostRecentFirst
        adapter.discovering = false
        adapter.found = FoundDevices()
        daemon.adapters[name] = adapter
        invalidateFound(daemon, found)
        if wasDiscovering { daemon.change(adapter.path, BluetoothdAPI.adapter, [("Discovering", .boolean(false))]) }
        listen(daemon, name)
    }

    /// Passive scanning for the registered monitors, when discovery does not run (it hears
    /// everything they would).
    static func listen(_ daemon: isolated Bluetoothd, _ name: String) {
        guard let adapter = daemon.adapters[name], adapter.listening, !adapter.discovering, !adapter.monitorApps.isEmpty
        else { return }
        daemon.schedule("scan:\(name)") { daemon in await scan(daemon, name) }
    }

    /// `discovery_cleanup`: removing a device flushes its pending changes at once, the others'
    /// invalidations go out with the next idle flush — so removals come first.
    static func invalidateFound(_ daemon: isolated Bluetoothd, _ found: [ObjectPath]) {
        let removable = found.filter { path in
            guard let device = daemon.devices[path] else { return false }
            return device.temporary && device.link == .down && !daemon.peripheral(device.peripheral).spec.connectable
        }
        for path in removable.sorted() {
            invalidateSignal(daemon, path)
            DeviceLinks.removeDevice(daemon, path, announceLinkLoss: false)
        }
        for path in found where !removable.contains(path) { invalidateSignal(daemon, path) }
    }

    private static func invalidateSignal(_ daemon: isolated Bluetoothd, _ path: ObjectPath) {
        guard var device = daemon.devices[path] else { return }
        var invalidated: [String] = []
        if device.rssi != nil { invalidated.append("RSSI") }
        if device.txPower != nil { invalidated.append("TxPower") }
        device.rssi = nil
        device.txPower = nil
        daemon.devices[path] = device
        daemon.change(path, BluetoothdAPI.device, [], invalidated: invalidated)
    }

    /// The scan: every peripheral's advertisement is processed at its own pace while the
    /// adapter discovers.
    ///
    /// The first scan hears peripheral *i* first `firstAdvertisement` + 20 ms × *i* after it
    /// starts (or at its own ``MockPeripheral/advertisingStart``); later scans hear each at
    /// the next advertisement of its own schedule, which went on while nobody scanned.
    static func scan(_ daemon: isolated Bluetoothd, _ name: String) async {
        let (peripherals, started) = daemon.world.withState { ($0.peripherals.map(\.spec), $0.started) }
        guard !peripherals.isEmpty, var due = daemon.adapters[name]?.advertisingSchedule else { return }
        let clock = ContinuousClock()
        let first = clock.now + daemon.timings.firstAdvertisement
        let intervals = peripherals.map { $0.advertisingInterval ?? daemon.timings.advertisingInterval }
        due = due.prefix(peripherals.count).enumerated().map { index, next in
            let interval = intervals[index]
            return next >= first ? next : next + interval * Int(((first - next) / interval).rounded(.up))
        }
        due += (due.count..<peripherals.count).map { index in
            peripherals[index].advertisingStart.map { max(first, started + $0) } ?? first + .milliseconds(20 * index)
        }
        daemon.adapters[name]?.advertisingSchedule = due
        var queue = AdvertisingQueue(due)
        while daemon.running, daemon.adapters[name]?.listening == true, !Task.isCancelled,
            case let (next, index)? = queue.first
        {
            do { try await Task.sleep(until: next, clock: clock) } catch { return }
            guard daemon.running, daemon.adapters[name]?.listening == true else { return }
            report(daemon, peripheral: index, adapter: name)
            daemon.adapters[name]?.heard(index)
            let jitter = daemon.world.withState { $0.jitter(-5...5) }
            let following = max(clock.now, next) + intervals[index] + intervals[index] / 100 * jitter
            queue.rescheduleFirst(following)
            // In place: the schedule of ten thousand peripherals is not copied per report.
            daemon.adapters[name]?.advertisingSchedule[index] = following
        }
    }

    /// Processes one advertising report of peripheral `index` on adapter `name`.
    static func report(_ daemon: isolated Bluetoothd, peripheral index: Int, adapter name: String) {
        // Reports that arrive after the last session ended (the stop is on its way) are dropped,
        // unless monitors listen passively.
        guard let adapter = daemon.adapters[name] else { return }
        let discovering = adapter.discovering && adapter.clients.anyDiscovering
        guard discovering || (adapter.powered && !adapter.monitorApps.isEmpty) else { return }
        // A silent controller delivers no advertising report (Discovering stays true).
        guard !FaultActions.isSilent(daemon, name) else { return }
        // A connected peripheral has stopped advertising (a Pi takes one central at a time).
        guard !(daemon.devicesByPeripheral[index] ?? []).contains(where: { daemon.devices[$0]?.link != .down }) else {
            return
        }
        let heard = daemon.world.withState { world in
            world.hear(
                index, adapter: adapter.spec.address, report: adapter.reportsHeard(index),
                defaultInterval: daemon.timings.advertisingInterval)
        }
        guard let (state, rssi) = heard else { return }
        let spec = state.spec
        var report = AdvertisingReport(
            address: spec.address, name: spec.advertisedName, rssi: rssi, txPower: spec.txPower,
            uuids: spec.advertisedUUIDs, discoverable: spec.discoverable)
        report.manufacturerData = spec.manufacturerData
        report.serviceData = spec.serviceData
        if let advertiser = state.advertiser {
            EmitLog.shared.record(advertiser: index, counter: advertiser.counter)
            // The sensor's current measurement, on top of what it always advertises; passive
            // scanning asks for no scan response.
            let data = advertiser.advertisement(
                address: BluetoothdAPI.addressBytes(spec.address), scanResponse: discovering)
            report.manufacturerData.merge(data.manufacturerData) { $1 }
            report.serviceData.merge(data.serviceData) { $1 }
        }
        guard discovering else {
            return MonitorManager.reportMonitored(daemon, report, peripheral: index, adapter: name)
        }
        guard adapter.clients.kernelAccepts(report) else { return }
        let discoverable = adapter.clients.isDiscoverable(report)
        let path = BluetoothdAPI.devicePath(adapter: adapter.path, address: spec.address)
        let isNew = daemon.devices[path] == nil
        if isNew && !discoverable { return }
        var device =
            daemon.devices[path]
            ?? DeviceState(adapterName: name, adapterPath: adapter.path, peripheral: index, spec: spec)
        var changes: [(String, DBusValue)] = []
        let passes = discoverable && (!adapter.clients.isFiltered || adapter.clients.matches(report))
        if passes {
            changes = update(
                daemon,
                &device, with: report, filtered: adapter.clients.isFiltered,
                duplicates: adapter.clients.wantsDuplicateData)
        }
        publish(daemon, device, isNew: isNew, changes)
        if passes { daemon.adapters[name]?.found.insert(path) }
        if device.temporary { DeviceLinks.armTemporaryTimer(daemon, path) }
    }

    /// Exports a device heard for the first time, or announces what changed on a known one.
    static func publish(
        _ daemon: isolated Bluetoothd, _ device: DeviceState, isNew: Bool, _ changes: [(String, DBusValue)]
    ) {
        if isNew {
            daemon.add(device)
            daemon.export(device.path, [DeviceLinks.deviceInterface(daemon, device)])
        } else {
            daemon.devices[device.path] = device
            daemon.change(device.path, BluetoothdAPI.device, changes)
        }
    }

    /// Applies a report to a device; returns the changed properties in the order bluetoothd
    /// sets them (RSSI, TxPower, Name, Alias, UUIDs, ManufacturerData, ServiceData).
    static func update(
        _ daemon: isolated Bluetoothd,
        _ device: inout DeviceState, with report: AdvertisingReport, filtered: Bool, duplicates: Bool
    ) -> [(String, DBusValue)] {
        var changes: [(String, DBusValue)] = []
        // Without a filter bluetoothd reports RSSI moves of 8 dBm or more; with one, every report.
        let moved = device.rssi.map { abs(Int($0) - Int(report.rssi)) >= 8 } ?? true
        if filtered || moved {
            device.rssi = report.rssi
            changes.append(("RSSI", .int16(report.rssi)))
        }
        if let tx = report.txPower, device.txPower != tx {
            device.txPower = tx
            changes.append(("TxPower", .int16(tx)))
        }
        if let name = report.name, device.name != name {
            device.name = name
            changes.append(("Name", .string(name)))
            if device.customAlias == nil { changes.append(("Alias", .string(name))) }
        }
        if device.gatt == nil {
            let uuids = device.uuids + report.uuids.filter { !device.uuids.contains($0) }
            if uuids != device.uuids {
                device.uuids = uuids
                changes.append(("UUIDs", .strings(uuids)))
            }
        }
        // As bluetoothd: without DuplicateData the entries of earlier advertisements stay
        // beside the new ones (a key that is data, Inkbird's, piles up); with it, only these.
        let manufacturerData =
            duplicates
            ? report.manufacturerData : (device.manufacturerData ?? [:]).merging(report.manufacturerData) { $1 }
        if !report.manufacturerData.isEmpty, duplicates || device.manufacturerData != manufacturerData {
            device.manufacturerData = manufacturerData
            changes.append(("ManufacturerData", PropertyTables.manufacturerData(manufacturerData)))
        }
        if !report.serviceData.isEmpty, duplicates || device.serviceData != report.serviceData {
            device.serviceData = report.serviceData
            changes.append(("ServiceData", PropertyTables.serviceData(report.serviceData)))
        }
        return changes
    }
}
