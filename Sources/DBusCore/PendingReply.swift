import CBlueZ

/// One outstanding method call: delivers its outcome exactly once, whichever
/// comes first of the reply, cancellation and the connection dropping.
///
/// libdbus's side (`arm`, the notify callback, `cancel`, `fail`) runs on the
/// connection's queue. The waiting side (`wait`) runs wherever Swift puts the
/// continuation's body, so the hand-over between the two is a small mutex-guarded
/// state machine: whichever side comes second resumes the continuation.
/// (A pthread mutex, ``Locked``, so ThreadSanitizer sees the hand-over.)
final class PendingReply: @unchecked Sendable {
    // @unchecked: `pending` is used only on the connection's queue (see above), and
    // the mutable state lives in `state`, behind a mutex.
    private let pending: OpaquePointer
    private let state = Locked(State.waiting(nil))

    private enum State {
        /// No outcome yet; the continuation, once `wait` has installed it.
        case waiting(CheckedContinuation<DBusMessage, any Error>?)
        /// An outcome that arrived before `wait` installed the continuation.
        case ready(Result<DBusMessage, any Error>)
        /// The outcome was delivered.
        case delivered
    }

    /// Takes over the caller's reference to `pending`.
    init(_ pending: OpaquePointer) { self.pending = pending }

    deinit { dbus_pending_call_unref(pending) }

    /// Asks libdbus to report completion; call on the connection's queue, right after sending.
    ///
    /// The notify's user data is unretained: the call's frame (and the connection's
    /// table of outstanding calls) keep `self` alive until an outcome is delivered,
    /// and libdbus calls the notify at most once, never after `cancel` or after it
    /// dropped the call on disconnect.
    func arm() {
        let me = Unmanaged.passUnretained(self).toOpaque()
        guard dbus_pending_call_set_notify(pending, pendingCallNotify, me, nil) != 0 else {
            return fail(DBusError(name: DBusError.Name.noMemory, message: "cannot wait for reply"))
        }
        // Completed before the notify was set (libdbus would then never call it).
        if dbus_pending_call_get_completed(pending) != 0 { complete() }
    }

    /// Waits for the outcome; the continuation is resumed exactly once.
    func wait(_ continuation: CheckedContinuation<DBusMessage, any Error>) {
        let early: Result<DBusMessage, any Error>? = state.withLock { state in
            guard case .ready(let result) = state else {
                state = .waiting(continuation)
                return nil
            }
            state = .delivered
            return result
        }
        if let early { continuation.resume(with: early) }
    }

    /// Stops waiting for the reply and fails with `CancellationError`; on the queue.
    func cancel() { fail(CancellationError()) }

    /// Stops waiting for the reply and fails with `error`; on the queue.
    func fail(_ error: any Error) {
        guard !isDelivered else { return }
        dbus_pending_call_cancel(pending)
        deliver(.failure(error))
    }

    /// Takes the reply libdbus completed the call with; on the queue.
    fileprivate func complete() {
        guard !isDelivered else { return }
        guard let reply = dbus_pending_call_steal_reply(pending) else {
            return deliver(.failure(DBusError.disconnected("no reply")))
        }
        deliver(.success(DBusMessage(taking: reply)))
    }

    private var isDelivered: Bool {
        state.withLock { state in
            switch state {
            case .waiting: false
            case .ready, .delivered: true
            }
        }
    }

    private func deliver(_ result: Result<DBusMessage, any Error>) {
        let waiter: CheckedContinuation<DBusMessage, any Error>? = state.withLock { state in
            guard case .waiting(let continuation) = state else { return nil }
            state = continuation == nil ? .ready(result) : .delivered
            return continuation
        }
        waiter?.resume(with: result)
    }
}

private let pendingCallNotify: DBusPendingCallNotifyFunction = { _, data in
    Unmanaged<PendingReply>.fromOpaque(data!).takeUnretainedValue().complete()
}
