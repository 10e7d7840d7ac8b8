import BlectlProtocol
import Central

/// Runs work against a deadline without waiting for work that ignores cancellation.
///
/// A task group would wait for every child before returning, so a central call that
/// never returns would hold the request forever. Here the work runs in its own task and
/// whichever comes first — its result, the deadline, or cancellation of the caller —
/// resumes the caller; the loser is cancelled.
enum TimeLimit {
    /// The work's result, or nil when the deadline passed (or the caller was cancelled) first.
    /// Without a deadline, only cancellation stops the wait.
    static func run<T: Sendable>(
        until deadline: ContinuousClock.Instant?,
        _ operation: @escaping @Sendable () async throws -> T
    ) async -> Result<T, ErrorInfo>? {
        let gate = Gate<Result<T, ErrorInfo>?>()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                gate.install(continuation)
                gate.own(
                    Task {
                        do {
                            gate.finish(.success(try await operation()))
                        } catch {
                            gate.finish(.failure(ErrorInfo(describing: error)))
                        }
                    })
                guard let deadline else { return }
                gate.own(
                    Task {
                        try? await Deadline.sleep(until: deadline)
                        gate.finish(nil)
                    })
            }
        } onCancel: {
            gate.finish(nil)
        }
    }
}

/// A one-shot rendezvous: the first `finish` resumes the waiting continuation (now or
/// when it is installed) and cancels the tasks racing for it.
private final class Gate<Value: Sendable>: Sendable {
    private let outcome = OneShot<Value>()
    /// The racing tasks; nil once finished.
    private let tasks = Locked<[Task<Void, Never>]?>([])

    func install(_ continuation: CheckedContinuation<Value, Never>) { outcome.wait(continuation) }

    func own(_ task: Task<Void, Never>) {
        let kept = tasks.withLock { tasks in
            tasks?.append(task)
            return tasks != nil
        }
        if !kept { task.cancel() }
    }

    func finish(_ value: Value) {
        guard outcome.deliver(value) else { return }
        let racing = tasks.withLock { tasks in
            defer { tasks = nil }
            return tasks ?? []
        }
        for task in racing { task.cancel() }
    }
}

extension ErrorInfo {
    /// An error from the Bluetooth side as a reply error: an ``ErrorInfo`` as it is,
    /// anything else as `unavailable` with its description.
    init(describing error: any Error) {
        if let info = error as? ErrorInfo {
            self = info
        } else {
            self.init(.unavailable, String(describing: error))
        }
    }
}
