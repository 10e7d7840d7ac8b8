public import SensorModel
public import BlectlProtocol
import ConcurrencySupport
public import UnixSupport

/// The durable history: every reading and reading error in an SQLite database, written
/// in batches on a thread of its own.
///
/// The hub calls ``append(_:)`` for each event on its own thread; that costs one lock and
/// an array append, never I/O. The store's thread commits what arrived once per
/// ``Configuration/commitInterval`` in one transaction (WAL, fsynced), prunes old rows in
/// small steps, and answers queries from the database and from what is still in memory.
/// When the disk cannot be written, readings wait in memory (up to
/// ``Configuration/pendingLimit``) and the store reports itself degraded until a retry
/// works; a damaged file is moved aside and replaced. See docs/history.md.
public final class HistoryStore: Sendable {
    /// The database's name in a state directory.
    public static let fileName = "history.sqlite3"

    /// The database file.
    public let path: String
    /// The sequence number the hub continues after: the highest one stored or handed out
    /// before, so numbers never repeat across restarts (after a crash there may be a gap).
    public let lastSeq: UInt64
    private let loop: EventLoop
    private let inbox: Inbox
    private let writer: HistoryWriter

    private init(path: String, lastSeq: UInt64, loop: EventLoop, inbox: Inbox, writer: HistoryWriter) {
        self.path = path
        self.lastSeq = lastSeq
        self.loop = loop
        self.inbox = inbox
        self.writer = writer
    }

    /// Opens the database at `path` (a file, or a directory to hold `history.sqlite3`),
    /// creating it, upgrading its schema, or moving a damaged one aside.
    ///
    /// Throws only when another process has it open or a newer blectl wrote it (blectld
    /// then exits 78). A directory that cannot be written opens a degraded store, which
    /// keeps readings in memory and tries again every commit interval.
    ///
    /// A database from a blectl before schema version 2 is rebuilt first (docs/history.md):
    /// that takes seconds per million rows, and `upgradeProgress` hears how far it got after
    /// each batch of rows (blectld extends its start timeout with it).
    public static func open(
        path: String, configuration: Configuration = Configuration(), log: Log,
        upgradeProgress: UpgradeProgress? = nil
    ) throws(HistoryStoreError) -> HistoryStore {
        try open(
            path: path, configuration: configuration, log: log, migrations: Schema.migrations,
            upgradeProgress: upgradeProgress)
    }

    /// Hears how a rebuild of an old database goes: rows copied so far, rows in all.
    public typealias UpgradeProgress = @Sendable (_ copied: Int, _ total: Int) -> Void

    /// ``open(path:configuration:log:upgradeProgress:)`` with a list of schema steps (tests add one).
    static func open(
        path: String, configuration: Configuration, log: Log, migrations: [Migration],
        upgradeProgress: UpgradeProgress? = nil
    ) throws(HistoryStoreError) -> HistoryStore {
        let files = DatabaseFiles(resolving: path)
        let loop = EventLoop(label: "history-store")
        let inbox = Inbox(limit: configuration.pendingLimit)
        let writer = HistoryWriter(
            files: files, configuration: configuration, log: log, loop: loop, inbox: inbox, migrations: migrations,
            upgradeProgress: upgradeProgress)
        let started = loop.sync { () -> Result<UInt64, HistoryStoreError> in
            do throws(HistoryStoreError) { return .success(try writer.start()) } catch { return .failure(error) }
        }
        let lastSeq = try started.get()
        return HistoryStore(path: files.path, lastSeq: lastSeq, loop: loop, inbox: inbox, writer: writer)
    }

    /// Hands a reading or reading error to the store (other events are ignored).
    ///
    /// Call in `seq` order, from one thread; never blocks and does no I/O. Events with a
    /// number at or below one already handed over are not stored twice.
    public func append(_ event: Event) {
        let writer = writer
        switch inbox.put(event) {
        case .none: return
        case .armTimer: loop.execute { writer.armCommitTimer() }
        case .takeNow: loop.execute { writer.takeInbox() }
        }
    }

    /// Commits everything handed over so far (returns when the transaction ended, or
    /// failed and the readings wait in memory).
    public func flush() async {
        await onStoreThread { $0.flush() }
    }

    /// Commits, records the last sequence number for an exact restart, and closes the
    /// files. Call once the hub has stopped numbering events; later appends are ignored.
    public func close() async {
        await onStoreThread { $0.close() }
    }

    /// Readings and reading errors with `seq` greater than `since`, of one device or all,
    /// oldest first; at most `limit`, with `more` when others follow.
    public func page(address: BluetoothAddress?, since seq: UInt64, limit: Int) async -> HistoryPage {
        await onStoreThread { $0.page(address: address, since: seq, limit: limit) }
    }

    /// Readings and reading errors that arrived from `from` to before `until` (nil: now
    /// and later), in time order (`seq` within one millisecond); at most `limit`.
    ///
    /// For the next page pass the last event's time as `from` and its `seq` as `after`:
    /// events at exactly `from` are those with a greater `seq`.
    public func page(address: BluetoothAddress?, from: Timestamp, after seq: UInt64 = 0, until: Timestamp?, limit: Int)
        async -> HistoryPage
    {
        let until = until ?? Timestamp(millisecondsSince1970: .max)
        return await onStoreThread { $0.page(address: address, from: from, after: seq, until: until, limit: limit) }
    }

    /// Keeps a time range without readings and why; committed with the next batch.
    public func recordGap(_ gap: HistoryGap) {
        let writer = writer
        loop.execute { writer.record(gap) }
    }

    /// The gaps overlapping `from` ..< `until` (nil: now and later) of `address` and of every
    /// device (all gaps when `address` is nil), oldest first.
    public func gaps(address: BluetoothAddress?, from: Timestamp, until: Timestamp?) async -> [HistoryGap] {
        let until = until ?? Timestamp(millisecondsSince1970: .max)
        return await onStoreThread { $0.gaps(address: address, from: from, until: until) }
    }

    /// The store's state: file, rows, size, and whether it is degraded and why.
    public func status() async -> HistoryStatus {
        await onStoreThread { $0.status() }
    }

    /// Counters for tests and the benchmark: transactions committed, pruning steps run.
    func counters() async -> (commits: Int, pruneSteps: Int) {
        await onStoreThread { ($0.commits, $0.pruneSteps) }
    }

    /// The room for readings the writer's arrays hold now, for tests: it shrinks back after a burst.
    func bufferCapacity() async -> Int {
        await onStoreThread { $0.pending.capacity + $0.spare.capacity }
    }

    private func onStoreThread<T: Sendable>(_ body: @escaping @Sendable (HistoryWriter) -> T) async -> T {
        let writer = writer
        return await withCheckedContinuation { continuation in
            loop.execute { continuation.resume(returning: body(writer)) }
        }
    }
}
