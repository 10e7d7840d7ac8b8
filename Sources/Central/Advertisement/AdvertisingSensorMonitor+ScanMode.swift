public import BlueZClient
import SensorModel

/// The scanning in use, and the advertisement monitor behind passive scanning.
struct ScanState {
    /// The mode in use (active until passive scanning is registered).
    var inUse = ScanMode.active
    /// Whether a mode was chosen yet (the first choice is logged).
    var chosen = false
    /// The monitors registered with BlueZ while scanning passively, one per adapter in use
    /// (every adapter selected scans: issue 36).
    var registrations: [BlueZPath: AdvertisementMonitorRegistration] = [:]
    /// The adapters a `RegisterMonitor` is on its way to.
    var registering: Set<BlueZPath> = []
    /// An adapter refused its monitor since passive scanning was last chosen: scanning is
    /// active on every adapter, and monitors registered late are taken back.
    var refused = false
    /// Shutting down: no new registration.
    var stopping = false
    /// The warning about formats passive scanning cannot hear was given.
    var warnedScanResponses = false
    /// Bumped whenever bluetoothd or the adapter goes: a registration answered by one that
    /// is gone since is dead.
    var generation = 0
}

extension AdvertisingSensorMonitor {
    /// The patterns of an advertisement monitor for the formats read: their 16-bit service
    /// data UUIDs (AD type 0x16), their manufacturers (0xFF), and the complete local names
    /// (0x09) of the devices whose manufacturer data is read under any company id.
    public nonisolated var monitorPatterns: [AdvertisementPattern] {
        let registry = configuration.registry
        let services = registry.serviceDataUUIDs.compactMap { uuid in
            uuid.shortValue.flatMap { UInt16(exactly: $0) }.map { AdvertisementPattern.serviceData(uuid16: $0) }
        }
        return services + registry.manufacturerIDs.map { AdvertisementPattern.manufacturer($0) }
            + registry.localNamePrefixes.map { AdvertisementPattern.localName(prefix: $0) }
    }

    /// Chooses active or passive scanning for the adapters in use (`scan_mode`), now that
    /// the central's state or its adapters changed.
    ///
    /// Passive scanning needs a monitor on every powered adapter in use (discovery is one
    /// demand for all of them): it is chosen when each offers monitors, and an adapter that
    /// refuses its monitor puts every adapter back to active scanning.
    func chooseScanMode() {
        let (state, adapters, inUse) = central.assumeIsolated {
            ($0.state, $0.poweredAdapterPaths, Set($0.adapterPaths))
        }
        guard state == .poweredOn, !adapters.isEmpty else {
            // A powered-off adapter keeps its monitors; bluetoothd or the adapter gone does not.
            if state != .poweredOff {
                scan.generation += 1
                for registration in Array(scan.registrations.values) { forget(registration) }
            }
            return
        }
        // An adapter gone or no longer used: its monitor is not wanted (or went with it).
        for (adapter, registration) in scan.registrations where !inUse.contains(adapter) { unregister(registration) }
        let lacking = adapters.first { adapter in
            !central.client.assumeIsolated { $0.offersAdvertisementMonitors(adapter) }
        }
        let needsActive = configuration.registry.needsActiveScanning
        switch configuration.scanMode.resolved(passiveAvailable: lacking == nil, needsActive: needsActive) {
        case .passive:
            warnOfScanResponses(needsActive)
            if scan.registering.isEmpty { scan.refused = false }
            guard !scan.refused else { return }
            for adapter in adapters { registerMonitor(on: adapter) }
        case .active, .auto:
            use(
                .active,
                because: activeReason(lacking ?? adapters[0], offered: lacking == nil, needsActive: needsActive))
        }
    }

    private func activeReason(_ adapter: BlueZPath, offered: Bool, needsActive: Bool) -> String {
        switch configuration.scanMode {
        case .active:
            return "scan_mode = active"
        case .auto where offered:
            let names = configuration.registry.profiles.filter(\.needsActiveScanning).map(\.name)
            return "a format read (\(names.joined(separator: ", "))) sends its data in scan responses"
        case .auto, .passive:
            let reason =
                "\(adapter.lastElement) offers no AdvertisementMonitorManager1 "
                + "(bluetoothd runs without --experimental)"
            if configuration.scanMode == .passive {
                log.warning("scan_mode = passive, but \(reason): scanning actively")
            }
            return reason
        }
    }

    /// `scan_mode = passive` with a format that only scan responses carry.
    private func warnOfScanResponses(_ needsActive: Bool) {
        guard needsActive, !scan.warnedScanResponses else { return }
        scan.warnedScanResponses = true
        let names = configuration.registry.profiles.filter(\.needsActiveScanning).map(\.id.rawValue)
        log.warning(
            "scan_mode = passive: \(names.joined(separator: ", ")) send their data in scan responses, "
                + "which passive scanning does not ask for; those sensors will not be heard")
    }

    /// Registers the advertisement monitor on `adapter`; discovery for the sensors stops
    /// meanwhile, and comes back (on every adapter) if BlueZ refuses.
    private func registerMonitor(on adapter: BlueZPath) {
        guard scan.registrations[adapter] == nil, !scan.registering.contains(adapter), !scan.stopping else { return }
        scan.registering.insert(adapter)
        discovery(false)
        let patterns = monitorPatterns
        let generation = scan.generation
        Task {
            do {
                let registration = try await central.client.registerAdvertisementMonitor(
                    on: adapter, patterns: patterns
                ) { [weak self] event in
                    self?.assumeIsolated { $0.monitorEvent(event, on: adapter) }
                }
                scan.registering.remove(adapter)
                guard !scan.stopping, !scan.refused else {
                    await central.client.unregisterAdvertisementMonitor(registration)
                    return
                }
                guard generation == scan.generation else {
                    // bluetoothd or the adapter went meanwhile: register with what is there now.
                    forget(registration)
                    return chooseScanMode()
                }
                scan.registrations[adapter] = registration
                let reason = "an advertisement monitor on \(adapter.lastElement) for " + patternList(patterns)
                if scan.chosen, scan.inUse == .passive {
                    log.info("advertisements: passive scanning on \(adapter.lastElement) too (\(reason))")
                } else {
                    use(.passive, because: reason)
                }
            } catch {
                scan.registering.remove(adapter)
                scan.refused = true
                log.warning(
                    "passive scanning: RegisterMonitor on \(adapter.lastElement) failed (\(error)): scanning actively")
                use(.active, because: "bluetoothd refused the advertisement monitor")
            }
        }
    }

    private func patternList(_ patterns: [AdvertisementPattern]) -> String {
        patterns.map(\.description).joined(separator: ", ")
    }

    /// What BlueZ calls on the monitor of `adapter`.
    func monitorEvent(_ event: AdvertisementMonitorEvent, on adapter: BlueZPath) {
        switch event {
        case .activated:
            log.info("advertisements: the advertisement monitor is active on \(adapter.lastElement)")
        case .released:
            // After our own UnregisterMonitor the registration is gone already.
            guard let registration = scan.registrations[adapter], !scan.stopping else { return }
            log.warning(
                "advertisements: bluetoothd released the advertisement monitor on \(adapter.lastElement): "
                    + "scanning actively")
            forget(registration)
            use(.active, because: "bluetoothd released the advertisement monitor")
        case .deviceFound(let path):
            log.debug("advertisements: the monitor found \(path)")
        case .deviceLost(let path):
            log.debug("advertisements: the monitor lost \(path)")
        }
    }

    /// Puts `mode` in use: discovery on for active scanning; the change logged.
    private func use(_ mode: ScanMode, because reason: String) {
        if mode == .active { for registration in Array(scan.registrations.values) { unregister(registration) } }
        discovery(mode == .active)
        // The management socket reports what discovery hears; passive scanning's reports come through BlueZ.
        central.assumeIsolated { $0.reportManagementAdvertisements(mode == .active) }
        guard mode != scan.inUse || !scan.chosen else { return }
        scan.chosen = true
        scan.inUse = mode
        log.info("advertisements: \(mode.rawValue) scanning (\(reason))")
    }

    /// Unregisters a monitor no longer wanted (its `Release` then finds no registration).
    private func unregister(_ registration: AdvertisementMonitorRegistration) {
        scan.registrations[registration.adapter] = nil
        Task { await central.client.unregisterAdvertisementMonitor(registration) }
    }

    /// The registration died with bluetoothd or the adapter: stop serving it.
    private func forget(_ registration: AdvertisementMonitorRegistration) {
        scan.registrations[registration.adapter] = nil
        central.client.assumeIsolated { $0.forgetAdvertisementMonitor(registration) }
    }

    /// Unregisters the monitor (shutdown).
    func stopPassiveScanning() async {
        scan.stopping = true
        let registrations = scan.registrations.values
        scan.registrations = [:]
        let client = central.client
        await withTaskGroup(of: Void.self) { group in
            for registration in registrations {
                group.addTask { await client.unregisterAdvertisementMonitor(registration) }
            }
        }
    }
}
