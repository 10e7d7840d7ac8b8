/// A value handed once to one waiting continuation, whichever comes first: the value
/// or the continuation (a callback can finish before the waiter is installed).
///
/// The first ``deliver(_:)`` wins; later ones are ignored. Used for replies to method
/// calls, dispatch-deadline sleeps and races against a deadline.
public final class OneShot<Value: Sendable>: Sendable {
    private enum State {
        /// No value yet; the continuation, once ``wait(_:)`` has installed it.
        case waiting(CheckedContinuation<Value, Never>?)
        /// A value that arrived before the continuation.
        case ready(Value)
        /// The value went to the continuation.
        case delivered
    }

    private let state = Locked(State.waiting(nil))

    /// Creates an empty one-shot.
    public init() {}

    /// Resumes `continuation` with the value, now if it is there, else when it comes.
    public func wait(_ continuation: CheckedContinuation<Value, Never>) {
        let early: Value? = state.withLock { state in
            guard case .ready(let value) = state else {
                state = .waiting(continuation)
                return nil
            }
            state = .delivered
            return value
        }
        if let early { continuation.resume(returning: early) }
    }

    /// Hands `value` over unless a value was handed over already; returns whether it was.
    @discardableResult
    public func deliver(_ value: Value) -> Bool {
        let (accepted, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Value, Never>?) in
            guard case .waiting(let continuation) = state else { return (false, nil) }
            state = continuation == nil ? .ready(value) : .delivered
            return (true, continuation)
        }
        waiter?.resume(returning: value)
        return accepted
    }

    /// Whether a value was handed over (to the continuation or waiting for it).
    public var isDelivered: Bool {
        state.withLock { state in
            if case .waiting = state { return false }
            return true
        }
    }
}
