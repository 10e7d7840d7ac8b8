import Dispatch
import DBusCore

/// Sleeping on a dispatch deadline instead of `Task.sleep`.
///
/// On Linux, while any `Task.sleep` is pending, libdispatch re-arms its timer every
/// second, so a daemon whose tasks wait for minutes still wakes once a second. A dispatch
/// deadline arms the timer once, for the deadline. Use this for every long wait.
public enum Deadline {
    /// Suspends for `duration`; throws `CancellationError` when the task is cancelled first.
    public static func sleep(for duration: Duration) async throws {
        let sleeper = Sleeper()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                sleeper.install(continuation)
                DispatchQueue.global().asyncAfter(deadline: .now() + dispatchInterval(duration)) {
                    sleeper.finish(nil)
                }
            }
        } onCancel: {
            sleeper.finish(CancellationError())
        }
    }

    /// Suspends until `deadline`; throws `CancellationError` when the task is cancelled first.
    public static func sleep(until deadline: ContinuousClock.Instant) async throws {
        try await sleep(for: max(.zero, deadline - .now))
    }

    private static func dispatchInterval(_ duration: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = duration.components
        let limit = Int64.max / 1_000_000_000 - 1
        return .nanoseconds(Int(min(seconds, limit) * 1_000_000_000 + attoseconds / 1_000_000_000))
    }
}

/// One sleep's continuation, resumed once: by its deadline or by cancellation, whichever
/// comes first (cancellation may even come before the continuation is installed).
private final class Sleeper: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Void, any Error>?
        var outcome: (any Error)??
    }

    private let state = Locked(State())

    func install(_ continuation: CheckedContinuation<Void, any Error>) {
        let early: (any Error)?? = state.withLock { state in
            if state.outcome == nil { state.continuation = continuation }
            return state.outcome
        }
        if let early { resume(continuation, early) }
    }

    /// Ends the sleep: nil for the deadline, an error for cancellation.
    func finish(_ error: (any Error)?) {
        let continuation = state.withLock { state -> CheckedContinuation<Void, any Error>? in
            guard state.outcome == nil else { return nil }
            state.outcome = .some(error)
            defer { state.continuation = nil }
            return state.continuation
        }
        if let continuation { resume(continuation, error) }
    }

    private func resume(_ continuation: CheckedContinuation<Void, any Error>, _ error: (any Error)?) {
        if let error { continuation.resume(throwing: error) } else { continuation.resume() }
    }
}
