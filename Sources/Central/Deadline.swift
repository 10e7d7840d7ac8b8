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
        let wake = OneShot<Result<Void, any Error>>()
        try await withTaskCancellationHandler {
            try await withCheckedContinuation { continuation in
                wake.wait(continuation)
                DispatchQueue.global().asyncAfter(deadline: .now() + dispatchInterval(duration)) {
                    wake.deliver(.success(()))
                }
            }.get()
        } onCancel: {
            wake.deliver(.failure(CancellationError()))
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
