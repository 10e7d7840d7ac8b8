/// The state of the durable history (the SQLite store): part of `status`.
public struct HistoryStatus: Codable, Equatable, Sendable {
    /// Whether the store writes as it should.
    public enum State: String, Codable, Sendable {
        /// Readings reach the database.
        case ok
        /// Readings wait in memory (disk full, read-only, damaged file being replaced);
        /// ``HistoryStatus/reason`` says why. Writing resumes by itself.
        case degraded
    }

    /// The database file.
    public var path: String
    /// `ok` or `degraded`.
    public var state: State
    /// Why the store is degraded, e.g. `disk full (database or disk is full: No space left on device)`.
    public var reason: String?
    /// Readings and reading errors in the database.
    public var rows: Int
    /// The time of the oldest stored reading.
    public var oldest: Timestamp?
    /// The bytes the database and its write-ahead log take on disk.
    public var bytes: Int64
    /// Readings waiting in memory for the next commit.
    public var pending: Int
    /// Readings dropped since start because more were waiting than the configured bound.
    public var dropped: UInt64
    /// The highest sequence number committed to the database.
    public var committedSeq: UInt64

    /// Creates a status.
    public init(
        path: String, state: State, reason: String?, rows: Int, oldest: Timestamp?, bytes: Int64, pending: Int,
        dropped: UInt64, committedSeq: UInt64
    ) {
        self.path = path
        self.state = state
        self.reason = reason
        self.rows = rows
        self.oldest = oldest
        self.bytes = bytes
        self.pending = pending
        self.dropped = dropped
        self.committedSeq = committedSeq
    }

    private enum CodingKeys: String, CodingKey {
        case path, state, reason, rows, oldest, bytes, pending, dropped
        case committedSeq = "committed_seq"
    }
}
