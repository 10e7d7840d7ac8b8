import BlectlProtocol
import ConcurrencySupport

/// Where the hub's thread leaves readings for the writer: one lock, one array append.
///
/// The writer swaps the whole array out at each commit. The inbox asks for the writer to
/// be woken only on the first reading after it went idle, so a busy hub wakes it once per
/// commit interval, not once per reading; and when it holds `limit` readings, so the
/// writer takes them early and keeps the newest `limit` (dropping the oldest) while the
/// disk fails.
final class Inbox: Sendable {
    /// What the writer must be told after a ``put(_:)``.
    enum Wake {
        /// Nothing: it has a timer running, or will take soon.
        case none
        /// Start the commit timer.
        case armTimer
        /// Take the readings now (the inbox is full).
        case takeNow
    }

    private struct State: Sendable {
        var events: [Event] = []
        /// The writer has a commit timer running (or is being told to start one).
        var armed = false
        var dropped: UInt64 = 0
        var droppedThrough: UInt64 = 0
        var closed = false
    }

    /// Not `Synchronization.Mutex`: see ``Locked``.
    private let state = Locked(State())
    /// Readings after which the writer is asked to take them at once.
    let limit: Int
    /// Readings the inbox holds at most: reached only when the writer is stuck (in a
    /// minutes-long fsync, say); beyond it the newest are dropped and counted.
    var capacity: Int { 2 * limit }

    init(limit: Int) { self.limit = limit }

    /// Leaves a reading or reading error (other events are ignored).
    func put(_ event: Event) -> Wake {
        guard let seq = event.seq else { return .none }
        return state.withLock { state in
            guard !state.closed else { return .none }
            guard state.events.count < capacity else {
                state.dropped += 1
                state.droppedThrough = max(state.droppedThrough, seq)
                return .none
            }
            state.events.append(event)
            if state.events.count == limit { return .takeNow }
            guard !state.armed else { return .none }
            state.armed = true
            return .armTimer
        }
    }

    /// Swaps the waiting readings into `buffer` (which must be empty) and returns the drops
    /// since the last take.
    func take(into buffer: inout [Event]) -> (dropped: UInt64, droppedThrough: UInt64) {
        state.withLock { state in
            swap(&state.events, &buffer)
            defer { (state.dropped, state.droppedThrough) = (0, 0) }
            return (state.dropped, state.droppedThrough)
        }
    }

    /// The writer has nothing pending: it goes idle unless readings arrived meanwhile
    /// (then true, and it keeps its timer).
    func settle() -> Bool {
        state.withLock { state in
            state.armed = !state.events.isEmpty
            return state.armed
        }
    }

    /// The writer keeps a timer running (readings wait for a retry).
    func keepArmed() {
        state.withLock { $0.armed = true }
    }

    /// Ignores readings from now on (the store is closed).
    func close() {
        state.withLock { $0.closed = true }
    }
}
