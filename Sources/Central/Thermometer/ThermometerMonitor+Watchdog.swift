import UnixSupport

/// The scan watchdog's timer and steps (see ``ScanWatchdog``).
extension ThermometerMonitor {
    /// What the watchdog has done, for `status`; nil when it is off.
    public var scanWatchdogStatus: RecoveryLadderStatus? { watchdog?.status }

    /// Arms the watchdog's timer (if it is on, discovery is on, and no timer or step is pending).
    func armScanWatchdog() {
        watchdog?.arm { [weak self] in self?.assumeIsolated { $0.scanWatchdogFired() } }
    }

    private func scanWatchdogFired() {
        switch watchdog?.fired(expectingDevices: !sessions.isEmpty) {
        case .rearm?:
            armScanWatchdog()
        case .step(let step, let adapter)?:
            Task {
                let failed = await ScanWatchdog.perform(step, adapter: adapter, on: central, log: log)
                watchdog?.stepFinished(step, failed: failed)
                await central.restartSilenceClock()
                armScanWatchdog()
            }
        case .idle?, nil:
            break
        }
    }

    /// A device was heard after a step (or after an empty room): the ladder starts over.
    func heardAgain() {
        guard watchdog != nil else { return }
        watchdog?.heard()
        armScanWatchdog()
    }
}
