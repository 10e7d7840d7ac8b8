import UnixSupport

/// Tasks waiting inside the hub for its state to change, each until a deadline.
///
/// A waiter is resumed exactly once: by the next change, by its deadline, or by
/// cancellation. It then re-checks whatever it waits for; nothing polls.
struct ChangeWaiters {
    private struct Waiter {
        var continuation: CheckedContinuation<Void, Never>
        var timer: LoopTimer
    }

    private var waiters: [Int: Waiter] = [:]
    private var nextID = 0

    /// Reserves an id for a waiter about to be added.
    mutating func makeID() -> Int {
        nextID += 1
        return nextID
    }

    mutating func add(_ id: Int, _ continuation: CheckedContinuation<Void, Never>, timer: LoopTimer) {
        waiters[id] = Waiter(continuation: continuation, timer: timer)
    }

    /// Resumes one waiter (its deadline passed or it was cancelled), if still waiting.
    mutating func wake(_ id: Int) {
        guard let waiter = waiters.removeValue(forKey: id) else { return }
        waiter.timer.cancel()
        waiter.continuation.resume()
    }

    /// Resumes every waiter: the state changed.
    mutating func wakeAll() {
        let all = waiters
        waiters = [:]
        for waiter in all.values {
            waiter.timer.cancel()
            waiter.continuation.resume()
        }
    }
}

extension Hub {
    /// Suspends until the next state change, `deadline`, or cancellation, whichever is first.
    func nextChange(before deadline: ContinuousClock.Instant) async {
        let id = waiters.makeID()
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // A loop timer, not a sleeping task: it goes away with the waiter, where a
                // dispatch deadline would stay queued until it passed — one for every
                // waiter at every change, for up to `maxReadTimeout`.
                let timer = executor.schedule(after: deadline - .now) { [weak self] in
                    self?.assumeIsolated { $0.wakeWaiter(id) }
                }
                waiters.add(id, continuation, timer: timer)
            }
        } onCancel: {
            Task { await self.wakeWaiter(id) }
        }
    }

    /// Waits until `condition` holds or `deadline` passes; returns whether it holds.
    func wait(until deadline: ContinuousClock.Instant, for condition: () -> Bool) async -> Bool {
        while !condition() {
            guard ContinuousClock.now < deadline, !Task.isCancelled else { return false }
            await nextChange(before: deadline)
        }
        return true
    }

    private func wakeWaiter(_ id: Int) {
        waiters.wake(id)
    }
}
