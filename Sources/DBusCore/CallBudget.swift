/// How urgent a method call is when the connection's budget of outstanding calls is spent.
public enum CallPriority: Sendable, Hashable {
    /// Waits its turn behind every call queued before it.
    case normal
    /// Goes before every normal call waiting (clean-up, and devices known to work).
    case high
}

/// The connection's budget of calls awaiting replies, and the calls queued for a place.
///
/// dbus-daemon refuses a connection more than `max_replies_per_connection` calls awaiting
/// replies (128 on the system bus) with `LimitsExceeded`, whoever they are for: one peer
/// that never answers would make every later call fail. A budget well below that keeps
/// such calls from reaching the limit; the calls beyond it wait in FIFO order, high
/// priority first. Should the bus refuse anyway (its limit lower than the budget), the
/// allowance drops to what it accepted and grows back by one per reply.
struct CallBudget {
    /// The most calls outstanding at once.
    let limit: Int
    /// What may be outstanding now: `limit`, less after the bus refused a call.
    private(set) var allowance: Int
    /// Calls sent and awaiting replies.
    private(set) var outstanding = 0
    private var queues: [CallPriority: WaitQueue] = [.high: WaitQueue(), .normal: WaitQueue()]

    init(limit: Int) {
        self.limit = max(1, limit)
        allowance = self.limit
    }

    /// Calls waiting for a place.
    var waiting: Int { queues.values.reduce(0) { $0 + $1.count } }

    /// Asks for a place for call `id`: true when it may go now (the place is taken), false
    /// when it waits (``release()`` names it when its turn comes).
    mutating func request(_ id: UInt64, _ priority: CallPriority) -> Bool {
        if outstanding < allowance, waiting == 0 {
            outstanding += 1
            return true
        }
        queues[priority, default: WaitQueue()].append(id)
        return false
    }

    /// A call ended; returns the waiting calls that may go now (their places taken).
    mutating func release(replied: Bool = true) -> [UInt64] {
        outstanding -= 1
        if replied, allowance < limit { allowance += 1 }
        var ready: [UInt64] = []
        while outstanding < allowance, let next = queues[.high]?.popFirst() ?? queues[.normal]?.popFirst() {
            outstanding += 1
            ready.append(next)
        }
        return ready
    }

    /// The bus refused a call (`LimitsExceeded`): allow no more than are outstanding now,
    /// besides the refused call, which gives its place back.
    mutating func refused() -> [UInt64] {
        allowance = max(1, outstanding - 1)
        return release(replied: false)
    }

    /// Stops waiting for call `id` (cancelled, or its deadline passed); false if it was not waiting.
    mutating func withdraw(_ id: UInt64) -> Bool {
        for priority in [CallPriority.high, .normal] where queues[priority]?.remove(id) == true { return true }
        return false
    }

    /// Forgets every waiting call (the connection closed); returns them.
    mutating func removeAll() -> [UInt64] {
        var all: [UInt64] = []
        for priority in [CallPriority.high, .normal] {
            while let id = queues[priority]?.popFirst() { all.append(id) }
        }
        return all
    }
}

/// A FIFO of call identifiers with O(1) removal from the middle (withdrawn calls are
/// skipped when they reach the front).
struct WaitQueue {
    private var order: [UInt64] = []
    private var head = 0
    private var members: Set<UInt64> = []

    var count: Int { members.count }

    mutating func append(_ id: UInt64) {
        members.insert(id)
        order.append(id)
    }

    mutating func popFirst() -> UInt64? {
        while head < order.count {
            let id = order[head]
            head += 1
            if members.remove(id) != nil {
                compact()
                return id
            }
        }
        compact()
        return nil
    }

    mutating func remove(_ id: UInt64) -> Bool {
        guard members.remove(id) != nil else { return false }
        if order.count - head > 2 * members.count + 64 {
            order = order[head...].filter { members.contains($0) }
            head = 0
        }
        return true
    }

    /// Drops the consumed front once it is most of the array.
    private mutating func compact() {
        guard head > 32, head * 2 > order.count else { return }
        order.removeFirst(head)
        head = 0
    }
}
