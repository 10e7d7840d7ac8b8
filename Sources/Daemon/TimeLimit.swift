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
    static func run<T: Sendable>(
        until deadline: ContinuousClock.Instant,
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
    private struct State {
        var continuation: CheckedContinuation<Value, Never>?
        var outcome: Value?
        var finished = false
        var tasks: [Task<Void, Never>] = []
    }

    private let state = Locked(State())

    func install(_ continuation: CheckedContinuation<Value, Never>) {
        let outcome: Value? = state.withLock { state in
            guard state.finished else {
                state.continuation = continuation
                return nil
            }
            return state.outcome
        }
        if let outcome { continuation.resume(returning: outcome) }
    }

    func own(_ task: Task<Void, Never>) {
        let finished = state.withLock { state in
            if !state.finished { state.tasks.append(task) }
            return state.finished
        }
        if finished { task.cancel() }
    }

    func finish(_ value: Value) {
        let (continuation, tasks) = state.withLock {
            state -> (CheckedContinuation<Value, Never>?, [Task<Void, Never>]) in
            guard !state.finished else { return (nil, []) }
            state.finished = true
            state.outcome = value
            defer {
                state.continuation = nil
                state.tasks = []
            }
            return (state.continuation, state.tasks)
        }
        continuation?.resume(returning: value)
        for task in tasks { task.cancel() }
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
