/// A step of the recovery ladder for an adapter that hears nothing while discovering.
public enum RecoveryStep: String, Sendable, CaseIterable {
    /// Stop and start our discovery session.
    case restartDiscovery = "restart_discovery"
    /// Switch the adapter off and on through `Adapter1.Powered`.
    case powerCycle = "power_cycle"
    /// Take the controller down and up with libbluetooth's HCI calls (`adapter_reset = yes`).
    case resetController = "reset_controller"

    /// What the step does, for the log.
    var action: String {
        switch self {
        case .restartDiscovery: "restarting discovery"
        case .powerCycle: "power-cycling the adapter (Powered off, on)"
        case .resetController: "resetting the controller (HCI down, up)"
        }
    }
}

/// What the scan watchdog has done since start, for `status`.
public struct RecoveryLadderStatus: Sendable, Equatable {
    /// How long discovery may hear nothing before the first step.
    public var period: Duration
    /// Whether the last step, the controller reset, is allowed (`adapter_reset`).
    public var adapterReset: Bool
    /// Whether the adapter is silent now: a step was taken and nothing was heard since.
    public var silent = false
    /// Steps taken, by step.
    public var steps: [RecoveryStep: Int] = [:]
    /// Controller resets that failed (no `CAP_NET_ADMIN`, no such controller).
    public var resetFailures = 0
    /// Times something was heard again after a step.
    public var recoveries = 0
    /// The last step taken.
    public var lastStep: RecoveryStep?
    /// The step after which something was last heard again.
    public var lastRecoveredBy: RecoveryStep?

    /// Creates a status with nothing done yet.
    public init(period: Duration, adapterReset: Bool) {
        self.period = period
        self.adapterReset = adapterReset
    }
}

/// The scan watchdog's ladder: which step comes next and how long to wait for it.
///
/// Each step waits one `period` of silent discovery after the one before; once every step
/// was taken in vain, the ladder starts over with the wait doubled (up to `maxBackoff` times
/// the period), so that an adapter that stays silent is never worked on in a hot loop.
/// Anything heard sends it back to the first step and the shortest wait.
struct RecoveryLadder {
    /// The longest wait, as a multiple of the period (90 s → 48 min).
    static let maxBackoff = 32

    private let steps: [RecoveryStep]
    private var next = 0
    private var round = 0
    private(set) var status: RecoveryLadderStatus

    init(period: Duration, adapterReset: Bool) {
        steps = [.restartDiscovery, .powerCycle] + (adapterReset ? [.resetController] : [])
        status = RecoveryLadderStatus(period: period, adapterReset: adapterReset)
    }

    /// Silent discovery to wait for before the next step.
    var wait: Duration { status.period * min(1 << min(round, 16), Self.maxBackoff) }

    /// Position of the next step, for the log: `(1, 3)` for the first of three.
    var position: (step: Int, of: Int) { (next + 1, steps.count) }

    /// The step to take now; counts it.
    mutating func takeStep() -> RecoveryStep {
        let step = steps[next]
        next += 1
        if next == steps.count {
            next = 0
            round += 1
        }
        status.steps[step, default: 0] += 1
        status.lastStep = step
        status.silent = true
        return step
    }

    /// A controller reset failed.
    mutating func resetFailed() { status.resetFailures += 1 }

    /// Something was heard: back to the first step. Returns the step that was last taken
    /// when the adapter had been silent (the one that cured it), else nil.
    mutating func heard() -> RecoveryStep? {
        next = 0
        round = 0
        guard status.silent else { return nil }
        status.silent = false
        status.recoveries += 1
        status.lastRecoveredBy = status.lastStep
        return status.lastStep
    }
}
