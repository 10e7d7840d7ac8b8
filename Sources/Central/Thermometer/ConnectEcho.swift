/// Tells apart the notification that repeats the connect-time read (one measurement, one
/// reading) from every later value.
///
/// On connecting, the monitor reads the characteristic and then enables notifications; the
/// Pi's cputemp app (like many peripherals) notifies its current value as notifications
/// start, so the same measurement would arrive twice within a few milliseconds. The rule:
/// the first value after the connect-time read is dropped when its raw bytes are the read's
/// and it arrives before ``window`` has passed since notifications were enabled. Whatever
/// that first value is, the rule then ends for the stream: a later notification is never
/// dropped, whatever it carries. A read asked for (`blectl read` just after the connect)
/// ends it too: its value is reported.
struct ConnectEcho {
    /// How long after notifications start a repeat of the read still counts as its echo: a
    /// peripheral's periodic notification (cputemp: every 5 s) comes well after.
    static let window: Duration = .seconds(1)

    private enum Phase {
        /// Waiting for the connect-time read.
        case awaitingRead
        /// The read's raw value, while its echo may come.
        case armed([UInt8])
        /// The rule has ended for this stream.
        case over
    }

    private var phase = Phase.awaitingRead
    /// When the echo window closes; nil until notifications are enabled.
    private var deadline: ContinuousClock.Instant?

    /// Notes that notifications were enabled at `now`: the echo window starts.
    mutating func notificationsStarted(at now: ContinuousClock.Instant) {
        deadline = now + Self.window
    }

    /// Ends the rule: a read someone asked for is a measurement of its own, never an echo.
    mutating func end() {
        phase = .over
    }

    /// Whether `bytes`, arriving at `now`, is the echo of the connect-time read (and so is
    /// not reported); the first value of a stream is the read itself.
    mutating func isEcho(_ bytes: [UInt8], at now: ContinuousClock.Instant) -> Bool {
        switch phase {
        case .awaitingRead:
            phase = .armed(bytes)
            return false
        case .armed(let read):
            phase = .over
            return bytes == read && deadline.map { now <= $0 } ?? true
        case .over:
            return false
        }
    }
}
