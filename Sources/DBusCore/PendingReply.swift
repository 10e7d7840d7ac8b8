import ConcurrencySupport
import CBlueZ

/// One outstanding method call: delivers its outcome exactly once, whichever
/// comes first of the reply, cancellation and the connection dropping.
///
/// libdbus's side (`arm`, the notify callback, `cancel`, `fail`) runs on the
/// connection's event loop. The waiting side runs wherever Swift puts the continuation's
/// body, so the two meet in a ``OneShot``.
final class PendingReply: @unchecked Sendable {
    // @unchecked: `pending` is used only on the connection's event loop (see above); the
    // outcome is handed over through `outcome`, which is thread-safe.
    private let pending: OpaquePointer
    /// The reply or the error, for the waiting caller.
    let outcome = OneShot<Result<DBusMessage, any Error>>()

    /// Takes over the caller's reference to `pending`.
    init(_ pending: OpaquePointer) { self.pending = pending }

    deinit { dbus_pending_call_unref(pending) }

    /// Asks libdbus to report completion; call on the connection's event loop, right after sending.
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

    /// Stops waiting for the reply and fails with `CancellationError`; on the event loop.
    func cancel() { fail(CancellationError()) }

    /// Stops waiting for the reply and fails with `error`; on the event loop.
    func fail(_ error: any Error) {
        guard !outcome.isDelivered else { return }
        dbus_pending_call_cancel(pending)
        outcome.deliver(.failure(error))
    }

    /// Takes the reply libdbus completed the call with; on the event loop.
    fileprivate func complete() {
        guard !outcome.isDelivered else { return }
        guard let reply = dbus_pending_call_steal_reply(pending) else {
            outcome.deliver(.failure(DBusError.disconnected("no reply")))
            return
        }
        outcome.deliver(.success(DBusMessage(taking: reply)))
    }
}

private let pendingCallNotify: DBusPendingCallNotifyFunction = { _, data in
    Unmanaged<PendingReply>.fromOpaque(data!).takeUnretainedValue().complete()
}
