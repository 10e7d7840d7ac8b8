extension EventLoop {
    /// Suspends the calling task for `duration` on one of the loop's timers; throws
    /// `CancellationError` when the task is cancelled first.
    ///
    /// The one way to wait for time in blectl: a loop timer is armed once, for its
    /// deadline (`Task.sleep` keeps libdispatch's timer waking every second on Linux).
    public func sleep(for duration: Duration) async throws {
        let outcome = OneShot<Bool>()
        let timer = LoopBound<LoopTimer?>(nil)
        let elapsed = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                outcome.wait(continuation)
                execute { [self] in
                    guard !outcome.isDelivered else { return }
                    timer.value = schedule(after: duration) { outcome.deliver(true) }
                }
            }
        } onCancel: {
            outcome.deliver(false)
            execute { timer.value?.cancel() }
        }
        if !elapsed { throw CancellationError() }
    }

    /// Suspends until `deadline` (see ``sleep(for:)``).
    public func sleep(until deadline: ContinuousClock.Instant) async throws {
        try await sleep(for: max(.zero, deadline - .now))
    }

    /// Runs `operation` in a task of its own and returns its result, or nil when `deadline`
    /// passes (or the caller is cancelled) first; the loser is cancelled.
    ///
    /// Unlike a task group, this does not wait for an operation that ignores cancellation:
    /// a call that never returns cannot hold the caller past its deadline, nor a caller
    /// that is cancelled (with no deadline, only cancellation ends the wait early).
    public func run<T: Sendable>(
        until deadline: ContinuousClock.Instant?, _ operation: @escaping @Sendable () async throws -> T
    ) async -> Result<T, any Error>? {
        let outcome = OneShot<Result<T, any Error>?>()
        let work = Task {
            do {
                outcome.deliver(.success(try await operation()))
            } catch {
                outcome.deliver(.failure(error))
            }
        }
        let clock = deadline.map { deadline in
            Task { [self] in
                try? await sleep(until: deadline)
                outcome.deliver(nil)
            }
        }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { outcome.wait($0) }
        } onCancel: {
            outcome.deliver(nil)
        }
        work.cancel()
        clock?.cancel()
        return result
    }
}

/// A value used only on one event loop's thread, handed between closures that run there.
final class LoopBound<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is read and written only in work submitted to one loop.
    var value: Value

    init(_ value: Value) { self.value = value }
}
