import BlectlProtocol
import ConcurrencySupport

/// A reading or reading error on its way to the broker, with the device's signal
/// strength when the hub numbered it.
struct Outgoing: Sendable {
    let event: Event
    let seq: UInt64
    let rssi: Int?
}

/// Events handed from the hub's thread to the MQTT thread: one uncontended lock per event,
/// one wake-up per batch. Bounded: past `limit` waiting, the batch is dropped (the history
/// has them; the publisher reads them back from it) and only the newest `seq` is kept.
final class Handoff: Sendable {
    private struct Batch {
        var events: [Outgoing] = []
        var newest: UInt64 = 0
        var scheduled = false
    }

    private let batch = Locked(Batch())
    private let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    /// Adds `item`; returns whether the receiving thread must be woken to take the batch.
    func put(_ item: Outgoing) -> Bool {
        batch.withLock { batch in
            if batch.events.count >= limit { batch.events.removeAll(keepingCapacity: true) }
            batch.events.append(item)
            batch.newest = max(batch.newest, item.seq)
            defer { batch.scheduled = true }
            return !batch.scheduled
        }
    }

    /// Takes what waits, and the highest `seq` handed over so far.
    func take() -> (events: [Outgoing], newest: UInt64) {
        batch.withLock { batch in
            batch.scheduled = false
            defer { batch.events.removeAll(keepingCapacity: true) }
            return (batch.events, batch.newest)
        }
    }
}
