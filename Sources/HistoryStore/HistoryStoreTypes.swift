public import BlectlProtocol
public import UnixSupport

extension HistoryStore {
    /// How the store batches, retries and prunes.
    public struct Configuration: Sendable, Equatable {
        /// How often pending readings are committed, at most (`history_commit_interval`):
        /// one transaction and one fsync per interval. A crash loses at most this much.
        public var commitInterval: Duration
        /// How long readings are kept (`history_retention`).
        public var retention: Duration
        /// The most bytes the database's pages may hold (`history_max_bytes`); the oldest
        /// readings go first when it is exceeded. Nil: no bound but ``retention``.
        public var maxBytes: Int64?
        /// How many readings may wait in memory while the disk cannot be written; the oldest
        /// are dropped (and counted) beyond it.
        public var pendingLimit: Int
        /// Rows deleted per pruning step, one short transaction each.
        public var pruneChunk: Int
        /// The pause between pruning steps while there is a backlog.
        public var pruneSpacing: Duration

        /// The defaults: commit every 5 s, keep 30 days, at most 512 MiB, 100,000 readings
        /// in memory at most, prune 1,000 rows per step every 100 ms.
        public init(
            commitInterval: Duration = .seconds(5), retention: Duration = .seconds(30 * 86_400),
            maxBytes: Int64? = 512 << 20, pendingLimit: Int = 100_000, pruneChunk: Int = 1_000,
            pruneSpacing: Duration = .milliseconds(100)
        ) {
            self.commitInterval = commitInterval
            self.retention = retention
            self.maxBytes = maxBytes
            self.pendingLimit = max(1, pendingLimit)
            self.pruneChunk = max(1, pruneChunk)
            self.pruneSpacing = pruneSpacing
        }

        /// The store's settings (`history_*`), in the order help lists them.
        public static let settings: [Setting<Self>] = [
            .duration(
                "history_commit_interval", "DURATION", "Longest time between history commits", at: \.commitInterval,
                within: .milliseconds(100)...Duration.seconds(3600)
            ).documented(
                "The history commits at most this often: a power cut loses at most this much, and fewer commits "
                    + "mean fewer writes to an SD card. 0.1 s to 1 h."),
            .duration(
                "history_retention", "DURATION", "How long readings are kept", at: \.retention,
                within: .seconds(3600)...Duration.seconds(3650 * 86400)
            ).documented("How long readings are kept, 1 h to 3650 days."),
            .value("history_max_bytes", "BYTES", "Most bytes the stored readings may take", at: \.maxBytes) {
                text throws(SettingError) in Int64(try ValueParser.integer(text, within: (1 << 20)...(1 << 40)))
            }.documented(
                "The most bytes the stored readings may take (the oldest go first), 1 MiB to 1 TiB. One thermometer "
                    + "at one reading per 5 s takes about 2.3 MB a day.",
                shown: { $0.maxBytes.map { "\($0)" } ?? "" }),
        ]
    }
}

/// One page of stored history.
public struct HistoryPage: Sendable, Equatable {
    /// Readings and reading errors, oldest first.
    public var events: [Event]
    /// Whether more events follow: ask again after the last one returned.
    public var more: Bool
    /// False when events the query asks for were lost: pruned by retention or size,
    /// dropped while the disk could not be written, or in a damaged file moved aside.
    public var complete: Bool

    /// Creates a page.
    public init(events: [Event], more: Bool, complete: Bool) {
        self.events = events
        self.more = more
        self.complete = complete
    }
}

/// Why a history store cannot be opened. Both are configuration problems: blectld exits 78.
public enum HistoryStoreError: Error, Equatable, CustomStringConvertible {
    /// Another process (or another store in this one) has the database open.
    case inUse(path: String, holder: Int32?)
    /// A newer blectl wrote the database with a schema this one does not know.
    case newerSchema(path: String, version: Int32, known: Int32)

    /// A readable form, for the log and stderr.
    public var description: String {
        switch self {
        case .inUse(let path, let holder):
            let who = holder.map { "process \($0)" } ?? "another process"
            return "the history database \(path) is in use by \(who) (another blectld?); "
                + "stop it or give this one another --state-dir"
        case .newerSchema(let path, let version, let known):
            return "the history database \(path) has schema version \(version), newer than this blectld's "
                + "\(known); upgrade blectld or move the file away"
        }
    }
}

extension Event {
    /// When a reading or reading error arrived (nil for other events).
    var storedTime: Timestamp? {
        switch self {
        case .reading(let reading): reading.time
        case .readingError(let failure): failure.time
        default: nil
        }
    }
}

extension Duration {
    /// The duration in whole milliseconds.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}

extension Timestamp {
    /// This instant moved by `milliseconds`.
    func adding(milliseconds: Int64) -> Timestamp {
        Timestamp(millisecondsSince1970: millisecondsSince1970 + milliseconds)
    }
}
