import BlueZClient
import ConcurrencySupport

/// The notifications of one characteristic and the loss of its link, in order, for one
/// reader that waits for the next with a deadline.
final class MemoryInbox: Sendable {
    /// One thing that happened.
    enum Item: Sendable, Equatable {
        /// A notification's value.
        case value([UInt8])
        /// The link is gone (or the reader was cancelled): why.
        case lost(String)
    }

    private struct State {
        var items: [Item] = []
        var waiter: OneShot<Item?>?
        var lost: String?
        var path: BlueZPath?
    }

    private let state = Locked(State())
    private let loop: EventLoop

    init(loop: EventLoop) { self.loop = loop }

    /// From now on, values of the characteristic at `path` are taken.
    func follow(_ path: BlueZPath) { state.withLock { $0.path = path } }

    /// Takes a characteristic's value if it is the one followed.
    func pushValue(_ path: BlueZPath, _ bytes: [UInt8]) {
        guard state.withLock({ $0.path == path }) else { return }
        push(.value(bytes))
    }

    /// Forgets the values queued (a loss stays).
    func drain() { state.withLock { $0.items.removeAll { if case .value = $0 { true } else { false } } } }

    /// Adds an item: to the waiting reader, else to the queue.
    func push(_ item: Item) {
        let waiter: OneShot<Item?>? = state.withLock { state in
            if case .lost(let why) = item { state.lost = state.lost ?? why }
            defer { state.waiter = nil }
            return state.waiter
        }
        if let waiter, waiter.deliver(item) { return }
        state.withLock { $0.items.append(item) }
    }

    /// The next item; nil when `timeout` passes first. After a loss, the loss again.
    func next(timeout: Duration) async -> Item? {
        let waiter = OneShot<Item?>()
        let early: Item? = state.withLock { state in
            if !state.items.isEmpty { return state.items.removeFirst() }
            if let lost = state.lost { return .lost(lost) }
            state.waiter = waiter
            return nil
        }
        if let early { return early }
        let timer = Locked<LoopTimer?>(nil)
        loop.execute { [loop] in
            guard !waiter.isDelivered else { return }
            let armed = loop.schedule(after: timeout) { waiter.deliver(nil) }
            timer.withLock { $0 = armed }
        }
        let item = await withTaskCancellationHandler {
            await withCheckedContinuation { waiter.wait($0) }
        } onCancel: {
            waiter.deliver(.lost("cancelled"))
        }
        loop.execute { timer.withLock { $0?.cancel() } }
        state.withLock { if $0.waiter === waiter { $0.waiter = nil } }
        return item
    }
}
