import ConcurrencySupport

/// When the thermometer monitor's own scan should run: scan windows, discovery kept on for
/// advertising sensors, and pauses while connects are under way.
///
/// A controller scanning while it connects makes connections slower and less reliable, so
/// the scan pauses for connects; within a scan window for at most `pauseLimit`, so that a
/// connect that hangs does not stop discovery. State and decisions only: the monitor turns
/// them into discovery calls and timers.
struct ScanScheduler {
    /// How long a pause for connects may hold an open window closed.
    let pauseLimit: Duration
    /// How long the scan runs after a pause before the next one (see
    /// ``ThermometerConfiguration/connectBatchWindow``).
    let batchWindow: Duration
    /// Whether discovery stays on all the time (one window that never closes).
    var keepsScanning: Bool
    /// Ends the current scan window.
    var windowTimer: LoopTimer?
    /// Opens a window every `rescanPeriod`.
    var rescanner: Task<Void, Never>?
    /// When the latest window closes.
    private var windowEnd: ContinuousClock.Instant?
    /// Connects under way.
    private var connectsInFlight = 0
    /// When the current pause for connects began.
    private var pauseStarted: ContinuousClock.Instant?
    /// When the last pause for connects ended (the scan resumed).
    private var pauseEnded: ContinuousClock.Instant?
    /// Whether a pass that brings the scan in line is under way, and whether what it
    /// decided on changed meanwhile.
    private var reconciling = false
    private var outdated = false

    init(pauseLimit: Duration, batchWindow: Duration, keepsScanning: Bool) {
        self.pauseLimit = pauseLimit
        self.batchWindow = batchWindow
        self.keepsScanning = keepsScanning
    }

    /// Keeps the window open until at least `end`; false when it already was.
    mutating func openWindow(until end: ContinuousClock.Instant) -> Bool {
        if let windowEnd, windowEnd >= end { return false }
        windowEnd = end
        return true
    }

    /// Whether our scan should be on: in a window, or while `searching` (a thermometer is
    /// missing, or none is known); paused while connects are under way (within a window for
    /// at most `pauseLimit`).
    func wanted(searching: Bool, at now: ContinuousClock.Instant) -> Bool {
        let windowOpen = keepsScanning || windowEnd.map { $0 > now } ?? false
        if let pauseStarted { return windowOpen && now - pauseStarted >= pauseLimit }
        return windowOpen || searching
    }

    /// When the next connect may begin, if it must wait: soon after a pause, not before
    /// `batchWindow` after it, so that the thermometers heard meanwhile connect in one batch.
    var nextBatch: ContinuousClock.Instant? {
        connectsInFlight == 0 ? pauseEnded.map { $0 + batchWindow } : nil
    }

    /// Counts a connect in; true when it starts a pause (the whole batch shares it).
    mutating func connectStarted(at now: ContinuousClock.Instant) -> Bool {
        connectsInFlight += 1
        guard pauseStarted == nil else { return false }
        pauseStarted = now
        return true
    }

    /// Counts a connect out: the pause ends with the last one.
    mutating func connectEnded(at now: ContinuousClock.Instant) {
        connectsInFlight -= 1
        guard connectsInFlight == 0 else { return }
        pauseStarted = nil
        pauseEnded = now
    }

    /// Starts bringing the scan in line; false when a pass is under way already (it makes
    /// one more).
    mutating func beginReconciling() -> Bool {
        guard !reconciling else {
            outdated = true
            return false
        }
        reconciling = true
        return true
    }

    /// Starts a pass: what it decides on is current.
    mutating func beginPass() { outdated = false }

    /// Ends a pass; true when another is needed (something changed meanwhile).
    mutating func endPass() -> Bool {
        if outdated { return true }
        reconciling = false
        return false
    }

    /// Stops the window timer and the periodic windows.
    mutating func stop() {
        rescanner?.cancel()
        windowTimer?.cancel()
    }
}
