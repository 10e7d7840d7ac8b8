public import BlueZClient

/// The scan watchdogs' timers and steps, one watchdog per adapter (see ``ScanWatchdog``).
extension ThermometerMonitor {
    /// What the watchdogs have done, for `status`, summed over the adapters; nil when the
    /// watchdog is off.
    public var scanWatchdogStatus: RecoveryLadderStatus? {
        guard let period = configuration.scanWatchdog else { return nil }
        return watchdogs.values.map(\.status).reduce(
            RecoveryLadderStatus(period: period, adapterReset: configuration.adapterReset)
        ) { $0.adding($1) }
    }

    /// Links held and attempts under way (GATT thermometers and memory downloads), by the
    /// interface name of their adapter (`hci1`); each adapter may hold ``linkLimit``.
    public var linksByAdapter: [String: Int] { connectQueue.linksByAdapter }

    /// The links each adapter may hold (`max_connections`).
    public nonisolated var linkLimit: Int { configuration.maxConnections }

    /// What each adapter's watchdog has done, by adapter path.
    public var scanWatchdogStatuses: [BlueZPath: RecoveryLadderStatus] { watchdogs.mapValues(\.status) }

    /// Arms the watchdog's timer of `adapter`, or of every adapter in use (if the watchdog is
    /// on, discovery is on there, and no timer or step is pending).
    func armScanWatchdog(_ adapter: BlueZPath? = nil) {
        guard let period = configuration.scanWatchdog else { return }
        let adapters = adapter.map { [$0] } ?? central.assumeIsolated { $0.adapterPaths }
        for adapter in adapters {
            if watchdogs[adapter] == nil {
                watchdogs[adapter] = ScanWatchdog(
                    period: period, adapterReset: configuration.adapterReset, adapter: adapter, central: central,
                    log: log)
            }
            watchdogs[adapter]?.arm { [weak self] in self?.assumeIsolated { $0.scanWatchdogFired(adapter) } }
        }
    }

    private func scanWatchdogFired(_ adapter: BlueZPath) {
        switch watchdogs[adapter]?.fired(expectingDevices: !sessions.isEmpty) {
        case .rearm?:
            armScanWatchdog(adapter)
        case .step(let step)?:
            Task {
                let failed = await ScanWatchdog.perform(step, adapter: adapter, on: central, log: log)
                watchdogs[adapter]?.stepFinished(step, failed: failed)
                await central.restartSilenceClock(on: adapter)
                armScanWatchdog(adapter)
            }
        case .idle?, nil:
            break
        }
    }

    /// A device was heard on `adapter` after a step (or after an empty room): its ladder
    /// starts over.
    func heardAgain(_ adapter: BlueZPath) {
        guard watchdogs[adapter] != nil else { return }
        watchdogs[adapter]?.heard()
        armScanWatchdog(adapter)
    }

    /// Stops every watchdog.
    func stopScanWatchdogs() {
        for watchdog in watchdogs.values { watchdog.stop() }
        watchdogs = [:]
    }
}

extension RecoveryLadderStatus {
    /// This status and another adapter's, summed: silent when either is, the last steps of
    /// this one unless it has none.
    func adding(_ other: RecoveryLadderStatus) -> RecoveryLadderStatus {
        var sum = self
        sum.silent = silent || other.silent
        sum.steps.merge(other.steps, uniquingKeysWith: +)
        sum.resetFailures += other.resetFailures
        sum.recoveries += other.recoveries
        sum.lastStep = lastStep ?? other.lastStep
        sum.lastRecoveredBy = lastRecoveredBy ?? other.lastRecoveredBy
        return sum
    }
}
