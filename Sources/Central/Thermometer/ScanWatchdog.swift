import BlueZClient
import ConcurrencySupport
import UnixSupport

/// The scan watchdog of one adapter: discovery that hears nothing at all from any device for the ladder's
/// wait, while devices are expected, climbs the ``RecoveryLadder`` (restart discovery,
/// power-cycle the adapter, reset the controller). A Pi's UART-attached controller can go
/// silent while bluetoothd still says `Discovering=true`. Each adapter in use has its own,
/// so one wedged adapter is worked on while the others keep scanning.
///
/// Event-driven: one loop timer, armed when discovery comes on, after each step and when a
/// device is heard again; nothing is checked in between. Owned by the thermometer monitor
/// and used on its executor (the central's), which the timer fires on too.
struct ScanWatchdog {
    /// What to do when the timer fires.
    enum Verdict {
        /// Nothing: discovery is off (the timer is armed again when it comes on), or nothing
        /// was ever heard in an empty room (the first sound arms it again).
        case idle
        /// Not silent for long enough yet: arm the timer again.
        case rearm
        /// Take `step` on the watchdog's adapter (counted as taken).
        case step(RecoveryStep)
    }

    private let central: CentralManager
    /// The adapter watched.
    let adapter: BlueZPath
    private let log: Log
    private var ladder: RecoveryLadder
    /// Fires when discovery will have heard nothing for the ladder's wait.
    private var timer: LoopTimer?
    /// Whether a recovery step is under way.
    private var recovering = false

    init(period: Duration, adapterReset: Bool, adapter: BlueZPath, central: CentralManager, log: Log) {
        ladder = RecoveryLadder(period: period, adapterReset: adapterReset)
        self.adapter = adapter
        self.central = central
        self.log = log
    }

    /// What the watchdog has done, for `status`.
    var status: RecoveryLadderStatus { ladder.status }

    /// Arms the timer for when discovery will have been silent for the ladder's wait (if
    /// discovery is on, and no timer or step is pending); `fire` runs then.
    mutating func arm(_ fire: @escaping () -> Void) {
        guard timer == nil, !recovering else { return }
        let (scanning, silent) = central.assumeIsolated(passing: adapter) {
            ($0.isScanning(on: $1), $0.silentDiscovery(on: $1))
        }
        guard scanning else { return }  // armed again when discovery comes on
        timer = central.executor.schedule(after: max(ladder.wait - silent, .milliseconds(1)), fire)
    }

    /// The timer fired: what to do, given what discovery heard and whether thermometers are
    /// known (`expectingDevices`).
    mutating func fired(expectingDevices: Bool) -> Verdict {
        timer = nil
        guard !recovering else { return .idle }
        let (scanning, powered, heardBefore, silent) = central.assumeIsolated(passing: adapter) {
            ($0.isScanning(on: $1), $0.isPowered($1), $0.hasHeardDevices, $0.silentDiscovery(on: $1))
        }
        guard scanning, powered else { return .idle }  // armed again when discovery comes on
        guard silent >= ladder.wait else { return .rearm }
        guard heardBefore || expectingDevices else {
            // Nothing heard since start and no thermometer known: an empty room, not a silent
            // controller. The first sound arms the watchdog again.
            central.assumeIsolated(passing: adapter) { $0.reportNextSound(on: $1) }
            return .idle
        }
        return takeStep(after: silent)
    }

    private mutating func takeStep(after silent: Duration) -> Verdict {
        let position = ladder.position
        let step = ladder.takeStep()
        log.warning(
            "adapter \(adapter.lastElement): nothing heard from any device in \(silent.components.seconds) s of discovery; "
                + "\(step.action) (step \(position.step) of \(position.of))")
        recovering = true
        central.assumeIsolated(passing: adapter) { $0.reportNextSound(on: $1) }
        return .step(step)
    }

    /// Takes `step` on `central`; true when it failed (logged).
    static func perform(_ step: RecoveryStep, adapter: BlueZPath, on central: CentralManager, log: Log) async -> Bool {
        do {
            switch step {
            case .restartDiscovery: try await central.restartScan(on: adapter)
            case .powerCycle: try await central.powerCycleAdapter(adapter)
            case .resetController: try await central.resetController(adapter)
            }
            return false
        } catch {
            log.error("adapter \(adapter.lastElement): \(step.action) failed: \(error)")
            return true
        }
    }

    /// The step under way finished; `failed`: it threw.
    mutating func stepFinished(_ step: RecoveryStep, failed: Bool) {
        if failed, step == .resetController { ladder.resetFailed() }
        recovering = false
    }

    /// A device was heard after a step (or after an empty room): the ladder starts over and
    /// the pending timer is dropped.
    mutating func heard() {
        if let cured = ladder.heard() {
            log.notice("adapter \(adapter.lastElement): devices heard again after \(cured.action) (\(cured.rawValue))")
        }
        timer?.cancel()
        timer = nil
    }

    /// Drops the pending timer.
    func stop() { timer?.cancel() }
}
