import SensorModel
import BlectlProtocol

extension HistoryWriter {
    /// The shortest stop of the gateway recorded as a gap: a restart takes a second or two.
    static let shortestStop: Int64 = 60_000

    /// Records the time between the previous run's last sign of life and now as a
    /// "gateway stopped" gap, once, when it is long enough to matter.
    func recordStoppedGap(until now: Timestamp) {
        guard let ended = previousRunEnded else { return }
        previousRunEnded = nil
        guard now.millisecondsSince1970 - ended.millisecondsSince1970 >= Self.shortestStop else { return }
        record(HistoryGap(address: nil, from: ended, until: now, reason: .gatewayStopped))
        log.notice("history: no readings from \(ended.rfc3339) to \(now.rfc3339): blectld was not running")
    }

    /// Keeps a gap; it is committed with the next batch of readings.
    func record(_ gap: HistoryGap) {
        pendingGaps.append(gap)
        armCommitTimer()
    }

    /// Gaps overlapping `from` ..< `until` for `address` (and those of every device), from
    /// the file and from memory, oldest first.
    func gaps(address: BluetoothAddress?, from: Timestamp, until: Timestamp) -> [HistoryGap] {
        var gaps: [HistoryGap] = []
        if let database {
            do {
                gaps = try database.gaps(address: address, from: from, until: until)
            } catch {
                handle(error, during: "reading gaps")
            }
        }
        gaps += pendingGaps.filter { gap in
            gap.from < until && gap.until > from && (address == nil || gap.address == nil || gap.address == address)
        }
        return gaps.sorted { $0.from < $1.from }
    }
}
