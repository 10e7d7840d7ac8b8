import SensorModel
import BlectlProtocol

extension HistoryWriter {
    /// Readings and reading errors with `seq` > `since`, from the database and then from
    /// memory (those not yet committed), oldest first.
    func page(address: BluetoothAddress?, since: UInt64, limit: Int) -> HistoryPage {
        takeInbox()
        let limit = max(1, limit)
        var events: [Event] = []
        if let database {
            do {
                events = try database.events(address: address, since: since, limit: limit + 1)
            } catch {
                handle(error, during: "reading history")
            }
        }
        if events.count <= limit {
            // Pending numbers are all above the committed ones.
            let after = max(since, events.last?.seq ?? 0)
            var index = pending.firstIndex { ($0.seq ?? 0) > after } ?? pending.count
            while index < pending.count, events.count <= limit {
                if address == nil || pending[index].address == address { events.append(pending[index]) }
                index += 1
            }
        }
        let more = events.count > limit
        if more { events.removeLast(events.count - limit) }
        return HistoryPage(events: events, more: more, complete: since >= forgottenThrough)
    }

    /// Readings and reading errors with `from` <= time < `until`, in (time, seq) order,
    /// starting after (`from`, `after`): a later page passes the last event's time and seq.
    func page(address: BluetoothAddress?, from: Timestamp, after seq: UInt64, until: Timestamp, limit: Int)
        -> HistoryPage
    {
        takeInbox()
        let limit = max(1, limit)
        var stored: [Event] = []
        if let database {
            do {
                stored = try database.events(address: address, from: from, after: seq, until: until, limit: limit + 1)
            } catch {
                handle(error, during: "reading history")
            }
        }
        let start = (from.millisecondsSince1970, seq)
        let waiting = pending.filter { event in
            guard let time = event.storedTime?.millisecondsSince1970, let eventSeq = event.seq else { return false }
            return (time, eventSeq) > start && time < until.millisecondsSince1970
                && (address == nil || event.address == address)
        }.sorted(by: Self.timeOrder)
        var events = (stored + waiting.prefix(limit + 1)).sorted(by: Self.timeOrder)
        let more = events.count > limit
        if more { events.removeLast(events.count - limit) }
        return HistoryPage(
            events: events, more: more, complete: forgottenTime.map { from.millisecondsSince1970 > $0 } ?? true)
    }

    private static func timeOrder(_ lhs: Event, _ rhs: Event) -> Bool {
        (lhs.storedTime?.millisecondsSince1970 ?? 0, lhs.seq ?? 0) < (
            rhs.storedTime?.millisecondsSince1970 ?? 0, rhs.seq ?? 0
        )
    }

    /// The store's state for `status`.
    func status() -> HistoryStatus {
        takeInbox()
        var oldest: Timestamp?
        if let database {
            do { oldest = try database.oldestTime() } catch { handle(error, during: "reading the status") }
        }
        return HistoryStatus(
            path: files.path, state: problem == nil ? .ok : .degraded, reason: problem, rows: rows, oldest: oldest,
            bytes: files.bytesOnDisk(), pending: pending.count, dropped: dropped, committedSeq: committedSeq)
    }
}
