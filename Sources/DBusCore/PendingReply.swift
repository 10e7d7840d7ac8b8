import CBlueZ

/// One outstanding method call: resumes its continuation exactly once, with
/// the reply, with a synthesised error, or with cancellation.
final class PendingReply: @unchecked Sendable {
    // @unchecked: `start`, `complete` and `cancel` all run on the connection's queue.
    private let pending: OpaquePointer
    private var continuation: CheckedContinuation<DBusMessage, any Error>?
    private var finished = false

    init(_ pending: OpaquePointer) { self.pending = pending }

    deinit { dbus_pending_call_unref(pending) }

    func start(_ continuation: CheckedContinuation<DBusMessage, any Error>) {
        self.continuation = continuation
        let me = Unmanaged.passRetained(self).toOpaque()
        let ok = dbus_pending_call_set_notify(pending, pendingCallNotify, me) {
            Unmanaged<PendingReply>.fromOpaque($0!).release()
        }
        if ok == 0 {
            Unmanaged<PendingReply>.fromOpaque(me).release()
            finish(.failure(DBusError(name: DBusError.Name.noMemory, message: "cannot wait for reply")))
        } else if dbus_pending_call_get_completed(pending) != 0 {
            complete()
        }
    }

    func complete() {
        // Once only: libdbus aborts when asked to steal a reply twice.
        guard !finished else { return }
        guard let reply = dbus_pending_call_steal_reply(pending) else {
            return finish(.failure(DBusError.disconnected("no reply")))
        }
        finish(.success(DBusMessage(taking: reply)))
    }

    func cancel() {
        guard !finished else { return }
        dbus_pending_call_cancel(pending)
        finish(.failure(CancellationError()))
    }

    private func finish(_ result: Result<DBusMessage, any Error>) {
        guard !finished, let continuation else { return }
        finished = true
        self.continuation = nil
        continuation.resume(with: result)
    }
}

private let pendingCallNotify: DBusPendingCallNotifyFunction = { _, data in
    Unmanaged<PendingReply>.fromOpaque(data!).takeUnretainedValue().complete()
}
