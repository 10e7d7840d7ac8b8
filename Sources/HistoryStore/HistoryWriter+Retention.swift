import BlectlProtocol
import ConcurrencySupport

extension HistoryWriter {
    /// Runs the next pruning step after `delay` (replacing a later one already planned).
    func schedulePrune(after delay: Duration) {
        guard !closed else { return }
        pruneTimer?.cancel()
        pruneTimer = loop.schedule(after: delay) { [weak self] in self?.prune() }
    }

    /// One pruning step: at most ``HistoryStore/Configuration/pruneChunk`` rows older than
    /// the retention, or else, when the pages in use exceed the size bound, the oldest rows.
    /// A full step is followed by another after a short pause; otherwise the next one is
    /// planned for when the oldest row expires (batched: see `nextExpiry`).
    func prune() {
        pruneTimer = nil
        guard let database, !closed else { return }
        let chunk = configuration.pruneChunk
        do {
            let cutoff = Timestamp.now().adding(milliseconds: -configuration.retention.milliseconds)
            var pruned = try database.prune(before: cutoff, limit: chunk)
            if pruned.rows < chunk, let maxBytes = configuration.maxBytes, try database.usedBytes() > maxBytes {
                pruned = try database.prune(before: nil, limit: chunk)
                if pruned.rows == 0 {
                    log.warning("history: \(files.path) is over \(maxBytes) bytes with no rows left")
                }
            }
            pruneSteps += 1
            rows -= pruned.rows
            if pruned.rows > 0 {
                forgottenThrough = max(forgottenThrough, pruned.throughSeq)
                forgottenTime = max(forgottenTime ?? .min, pruned.latestTime)
                log.debug("history: pruned \(pruned.rows) rows through #\(pruned.throughSeq)")
            }
            if pruned.rows == chunk { return schedulePrune(after: configuration.pruneSpacing) }
            schedulePrune(after: try nextExpiry(of: database))
        } catch {
            handle(error, during: "pruning")
            schedulePrune(after: configuration.commitInterval)
        }
    }

    /// How long until the oldest row is older than the retention; at least a tenth of the
    /// retention or a minute, whichever is shorter, so expired rows go in batches rather
    /// than one transaction each.
    private func nextExpiry(of database: StoreDatabase) throws(SQLiteError) -> Duration {
        let retention = max(1, configuration.retention.milliseconds)
        guard let oldest = try database.oldestTime() else { return .milliseconds(retention) }
        let due = oldest.millisecondsSince1970 + retention - Timestamp.now().millisecondsSince1970
        let least = min(retention / 10, 60_000)
        return .milliseconds(min(max(due, least), retention))
    }

    /// After a commit: when the pages in use exceed the size bound, prune soon.
    func checkSize() {
        guard let maxBytes = configuration.maxBytes, let database, !closed else { return }
        do {
            if try database.usedBytes() > maxBytes { schedulePrune(after: configuration.pruneSpacing) }
        } catch {
            handle(error, during: "measuring the database")
        }
    }
}
