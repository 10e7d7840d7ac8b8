public import BlueZClient
import SensorModel

/// The scanning in use, and the advertisement monitor behind passive scanning.
struct ScanState {
    /// The mode in use (active until passive scanning is registered).
    var inUse = ScanMode.active
    /// Whether a mode was chosen yet (the first choice is logged).
    var chosen = false
    /// The monitor registered with BlueZ, while scanning passively.
    var registration: AdvertisementMonitorRegistration?
    /// A `RegisterMonitor` is on its way.
    var registering = false
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

    /// Chooses active or passive scanning for the adapter in use (`scan_mode`), now that
    /// the central's state changed.
    func chooseScanMode() {
        let state = central.assumeIsolated { $0.state }
        guard state == .poweredOn, let adapter = central.assumeIsolated({ $0.adapterPath }) else {
            // A powered-off adapter keeps its monitors; bluetoothd or the adapter gone does not.
            if state != .poweredOff {
                scan.generation += 1
                if let registration = scan.registration { forget(registration) }
            }
            return
        }
        if let registration = scan.registration, registration.adapter != adapter { unregister(registration) }
        let offered = central.client.assumeIsolated { $0.offersAdvertisementMonitors(adapter) }
        let needsActive = configuration.registry.needsActiveScanning
        switch configuration.scanMode.resolved(passiveAvailable: offered, needsActive: needsActive) {
        case .passive:
            warnOfScanResponses(needsActive)
            registerMonitor(on: adapter)
        case .active, .auto:
            use(.active, because: activeReason(adapter, offered: offered, needsActive: needsActive))
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

    /// Registers the advertisement monitor; discovery for the sensors stops meanwhile, and
    /// comes back if BlueZ refuses.
    private func registerMonitor(on adapter: BlueZPath) {
        guard scan.registration == nil, !scan.registering, !scan.stopping else { return }
        scan.registering = true
        discovery(false)
        let patterns = monitorPatterns
        let generation = scan.generation
        Task {
            do {
                let registration = try await central.client.registerAdvertisementMonitor(
                    on: adapter, patterns: patterns
                ) { [weak self] event in
                    self?.assumeIsolated { $0.monitorEvent(event) }
                }
                scan.registering = false
                guard !scan.stopping else {
                    await central.client.unregisterAdvertisementMonitor(registration)
                    return
                }
                guard generation == scan.generation else {
                    // bluetoothd or the adapter went meanwhile: register with what is there now.
                    forget(registration)
                    return chooseScanMode()
                }
                scan.registration = registration
                use(
                    .passive, because: "an advertisement monitor on \(adapter.lastElement) for " + patternList(patterns)
                )
            } catch {
                scan.registering = false
                log.warning(
                    "passive scanning: RegisterMonitor on \(adapter.lastElement) failed (\(error)): scanning actively")
                use(.active, because: "bluetoothd refused the advertisement monitor")
            }
        }
    }

    private func patternList(_ patterns: [AdvertisementPattern]) -> String {
        patterns.map(\.description).joined(separator: ", ")
    }

    /// What BlueZ calls on the monitor.
    func monitorEvent(_ event: AdvertisementMonitorEvent) {
        switch event {
        case .activated:
            log.info("advertisements: the advertisement monitor is active")
        case .released:
            // After our own UnregisterMonitor the registration is gone already.
            guard let registration = scan.registration, !scan.stopping else { return }
            log.warning("advertisements: bluetoothd released the advertisement monitor: scanning actively")
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
        if mode == .active, let registration = scan.registration { unregister(registration) }
        discovery(mode == .active)
        guard mode != scan.inUse || !scan.chosen else { return }
        scan.chosen = true
        scan.inUse = mode
        log.info("advertisements: \(mode.rawValue) scanning (\(reason))")
    }

    /// Unregisters a monitor no longer wanted (its `Release` then finds no registration).
    private func unregister(_ registration: AdvertisementMonitorRegistration) {
        scan.registration = nil
        Task { await central.client.unregisterAdvertisementMonitor(registration) }
    }

    /// The registration died with bluetoothd or the adapter: stop serving it.
    private func forget(_ registration: AdvertisementMonitorRegistration) {
        scan.registration = nil
        central.client.assumeIsolated { $0.forgetAdvertisementMonitor(registration) }
    }

    /// Unregisters the monitor (shutdown).
    func stopPassiveScanning() async {
        scan.stopping = true
        guard let registration = scan.registration else { return }
        scan.registration = nil
        await central.client.unregisterAdvertisementMonitor(registration)
    }
}
