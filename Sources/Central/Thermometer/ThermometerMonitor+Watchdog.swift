import UnixSupport

/// The scan watchdog: discovery that hears nothing at all from any device for
/// `scanWatchdog`, while devices are expected, climbs the recovery ladder (restart
/// discovery, power-cycle the adapter, reset the controller). A Pi's UART-attached
/// controller can go silent while bluetoothd still says `Discovering=true`.
///
/// Event-driven: one loop timer, armed when discovery comes on, after each step and when a
/// device is heard again; nothing is checked in between.
extension ThermometerMonitor {
    /// What the watchdog has done, for `status`; nil when it is off.
    public var scanWatchdogStatus: RecoveryLadderStatus? { ladder?.status }

    /// Arms the timer for when discovery will have been silent for the ladder's wait (if
    /// the watchdog is on, discovery is on, and no timer or step is pending).
    func armScanWatchdog() {
        guard let ladder, watchdogTimer == nil, !recovering else { return }
        let (scanning, silent) = central.assumeIsolated { ($0.isScanning, $0.silentDiscovery) }
        guard scanning else { return }  // armed again when discovery comes on
        watchdogTimer = central.executor.schedule(after: max(ladder.wait - silent, .milliseconds(1))) {
            [weak self] in
            self?.assumeIsolated { $0.scanWatchdogFired() }
        }
    }

    private func scanWatchdogFired() {
        watchdogTimer = nil
        guard let ladder, !recovering else { return }
        let (scanning, powered, heardBefore, silent) = central.assumeIsolated {
            ($0.isScanning, $0.state == .poweredOn, $0.hasHeardDevices, $0.silentDiscovery)
        }
        guard scanning, powered else { return }  // armed again when discovery comes on
        guard silent >= ladder.wait else { return armScanWatchdog() }
        guard heardBefore || !sessions.isEmpty else {
            // Nothing heard since start and no thermometer known: an empty room, not a silent
            // controller. The first sound arms the watchdog again.
            central.assumeIsolated { $0.reportNextSound() }
            return
        }
        takeRecoveryStep(after: silent)
    }

    private func takeRecoveryStep(after silent: Duration) {
        guard var ladder else { return }
        let position = ladder.position
        let step = ladder.takeStep()
        self.ladder = ladder
        let adapter = central.assumeIsolated { $0.adapterName } ?? "-"
        log.warning(
            "adapter \(adapter): nothing heard from any device in \(silent.components.seconds) s of discovery; "
                + "\(step.action) (step \(position.step) of \(position.of))")
        recovering = true
        central.assumeIsolated { $0.reportNextSound() }
        Task {
            await perform(step, adapter: adapter)
            recovering = false
            await central.restartSilenceClock()
            armScanWatchdog()
        }
    }

    private func perform(_ step: RecoveryStep, adapter: String) async {
        do {
            switch step {
            case .restartDiscovery: try await central.restartScan()
            case .powerCycle: try await central.powerCycleAdapter()
            case .resetController: try await central.resetController()
            }
        } catch {
            if step == .resetController { ladder?.resetFailed() }
            log.error("adapter \(adapter): \(step.action) failed: \(error)")
        }
    }

    /// A device was heard after a step (or after an empty room): the ladder starts over.
    func heardAgain() {
        guard var ladder else { return }
        if let cured = ladder.heard() {
            let adapter = central.assumeIsolated { $0.adapterName } ?? "-"
            log.notice("adapter \(adapter): devices heard again after \(cured.action) (\(cured.rawValue))")
        }
        self.ladder = ladder
        watchdogTimer?.cancel()
        watchdogTimer = nil
        armScanWatchdog()
    }
}
