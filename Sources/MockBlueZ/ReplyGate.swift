import ConcurrencySupport
import DBusCore

/// Holds back the timers a method handler starts until the handler has returned, so that
/// what bluetoothd sends *after* a reply (Discovering=true after StartDiscovery's reply,
/// ServicesResolved after Connect's) never overtakes that reply.
///
/// The object server sends the reply after the handler returns, through an executor hop
/// that can take a while on a busy machine; a timer that started inside the handler could
/// fire first. A gated timer starts counting only when the handler returns (and at least
/// 1 ms), by which time the reply is queued ahead of it on the same serial queue.
final class ReplyGate: Sendable {
    private struct State {
        var open = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    /// The gate of the method call the current task is handling, if any.
    @TaskLocal static var current: ReplyGate?

    /// Lets every waiting timer start.
    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            let waiters = state.waiters
            state.waiters = []
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the gate is open.
    func wait() async {
        await withCheckedContinuation { continuation in
            let isOpen = state.withLock { state -> Bool in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if isOpen { continuation.resume() }
        }
    }
}
