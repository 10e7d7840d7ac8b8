import SensorModel
import BlectlProtocol
import CSQLite

/// The open database of a store: its connection, prepared statements and the queries the
/// writer runs. Confined to the writer's thread.
final class StoreDatabase {
    let connection: SQLiteConnection
    private let insert: SQLiteStatement
    private let setMeta: SQLiteStatement
    private let afterSeq: SQLiteStatement
    private let afterSeqForAddress: SQLiteStatement
    private let inTimeRange: SQLiteStatement
    private let inTimeRangeForAddress: SQLiteStatement
    private let pruneBefore: SQLiteStatement
    private let pruneOldest: SQLiteStatement
    private let keys: RowKeys
    private let addGap: SQLiteStatement
    private let gapsInRange: SQLiteStatement
    private let pruneGaps: SQLiteStatement
    /// What the file held when it was opened.
    let found: Contents

    /// What an opened file holds, read once at open.
    struct Contents {
        var maxSeq: UInt64?
        var minSeq: UInt64?
        var rows: Int
        var oldestTime: Timestamp?
        /// `meta.seq_floor`: every sequence number handed out before is at or below it.
        var seqFloor: UInt64
        /// `meta.forgotten_through`: the highest sequence number lost (dropped or in a damaged file).
        var forgottenThrough: UInt64
        /// The last moment the file shows the gateway running: its clean close, or its newest row.
        var lastAlive: Timestamp?
    }

    /// The keys of the `meta` table.
    enum MetaKey {
        static let seqFloor = "seq_floor"
        static let forgottenThrough = "forgotten_through"
        /// When the last store to use the file closed it, in milliseconds (a crash leaves the
        /// one before).
        static let closedAt = "closed_at"
        /// Every key, as a rebuild copies them.
        static let all = [seqFloor, forgottenThrough, closedAt]
    }

    /// What the connection is set to: WAL (readers never wait for the writer; a commit
    /// appends to the log), `synchronous=FULL` (the log is fsynced at every commit, so a
    /// committed batch survives a power cut, not only a crash), a small page cache (1 MiB)
    /// and a WAL truncated back to 4 MiB after checkpoints.
    static let settings = [
        "PRAGMA synchronous = FULL",
        "PRAGMA cache_size = -1024",
        "PRAGMA journal_size_limit = 4194304",
    ]

    /// Opens the database at `path`, brings its schema up to date and prepares the statements.
    ///
    /// A file that is not a database fails here (`SQLITE_NOTADB` from the first read).
    init(path: String, migrations: [Migration] = Schema.migrations) throws(Schema.Failure) {
        do throws(SQLiteError) {
            connection = try SQLiteConnection(path: path)
            // Another program writing (sqlite3 by hand) is waited for a second, then a failed try.
            try connection.execute("PRAGMA busy_timeout = 1000")
            // Read before anything is written: damage and newer versions are found first.
            _ = try Schema.version(of: connection)
            guard !connection.isReadOnly else {
                throw SQLiteError(
                    operation: "open \(path)", code: SQLITE_READONLY, message: "the file or its directory is read-only")
            }
            // 1 KiB pages for a new file (an existing one keeps its own): a commit of a few
            // readings appends three small WAL frames instead of three 4 KiB ones, which halves
            // the bytes written per commit (docs/history.md has the figures).
            try connection.execute("PRAGMA page_size = 1024")
            let mode = try connection.texts("PRAGMA journal_mode = WAL").first ?? ""
            guard mode == "wal" else {
                throw SQLiteError(
                    operation: "PRAGMA journal_mode = WAL", code: SQLITE_CANTOPEN, message: "journal mode is \(mode)")
            }
            for setting in Self.settings { try connection.execute(setting) }
        } catch {
            throw .sqlite(error)
        }
        _ = try Schema.migrate(connection, with: migrations)
        do throws(SQLiteError) {
            let select = "SELECT \(ReadingsTable.selectList) FROM \(ReadingsTable.joined)"
            insert = try connection.prepare(ReadingsTable.insert)
            keys = try RowKeys(connection)
            setMeta = try connection.prepare(
                "INSERT INTO meta (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value")
            let device = "r.device = (SELECT id FROM devices WHERE address = ?"
            afterSeq = try connection.prepare("\(select) WHERE r.seq > ?1 ORDER BY r.seq LIMIT ?2")
            afterSeqForAddress = try connection.prepare(
                "\(select) WHERE \(device)3) AND r.seq > ?1 ORDER BY r.seq LIMIT ?2")
            let range = "(r.time, r.seq) > (?1, ?2) AND r.time < ?3"
            inTimeRange = try connection.prepare("\(select) WHERE \(range) ORDER BY r.time, r.seq LIMIT ?4")
            inTimeRangeForAddress = try connection.prepare(
                "\(select) WHERE \(range) AND \(device)5) ORDER BY r.time, r.seq LIMIT ?4")
            pruneBefore = try connection.prepare(
                """
                DELETE FROM readings WHERE seq IN (SELECT seq FROM readings WHERE time < ?1 ORDER BY time LIMIT ?2)
                RETURNING seq, time
                """)
            pruneOldest = try connection.prepare(
                "DELETE FROM readings WHERE seq IN (SELECT seq FROM readings ORDER BY seq LIMIT ?1) RETURNING seq, time"
            )
            addGap = try connection.prepare(
                "INSERT INTO gaps (device, start, end, reason) VALUES (?1, ?2, ?3, ?4)")
            // Gaps of every device count for each one; `?3` NULL asks for all.
            gapsInRange = try connection.prepare(
                """
                SELECT d.address, g.start, g.end, g.reason FROM gaps g LEFT JOIN devices d ON d.id = g.device
                WHERE g.start < ?2 AND g.end > ?1 AND (?3 IS NULL OR g.device IS NULL OR d.address = ?3)
                ORDER BY g.start LIMIT 1000
                """)
            pruneGaps = try connection.prepare("DELETE FROM gaps WHERE end < ?1")
            found = try Self.contents(of: connection)
        } catch {
            throw .sqlite(error)
        }
    }

    /// Reads the row summary and the counters; the reads meet the ends of both b-trees and
    /// every page of the time index, so a file damaged there fails here.
    private static func contents(of connection: SQLiteConnection) throws(SQLiteError) -> Contents {
        // Separate queries: SQLite answers a lone min() or max() from the ends of a b-tree.
        return Contents(
            maxSeq: try connection.integer("SELECT max(seq) FROM readings").map { UInt64(bitPattern: $0) },
            minSeq: try connection.integer("SELECT min(seq) FROM readings").map { UInt64(bitPattern: $0) },
            rows: Int(try connection.integer("SELECT count(*) FROM readings") ?? 0),
            oldestTime: try connection.integer("SELECT min(time) FROM readings").map {
                Timestamp(millisecondsSince1970: $0)
            },
            seqFloor: try meta(MetaKey.seqFloor, in: connection),
            forgottenThrough: try meta(MetaKey.forgottenThrough, in: connection),
            lastAlive: max(
                try connection.integer("SELECT max(time) FROM readings") ?? 0,
                Int64(bitPattern: try meta(MetaKey.closedAt, in: connection))
            ).nonZeroTimestamp)
    }

    // MARK: Reading the state

    /// The `meta` value of `key`; 0 when it was never written.
    static func meta(_ key: String, in connection: SQLiteConnection) throws(SQLiteError) -> UInt64 {
        let statement = try connection.prepare("SELECT value FROM meta WHERE key = ?1")
        statement.bind(1, key)
        defer { statement.reset() }
        return try statement.step() ? UInt64(bitPattern: statement.integer(0) ?? 0) : 0
    }

    /// The time of the oldest row.
    func oldestTime() throws(SQLiteError) -> Timestamp? {
        try connection.integer("SELECT min(time) FROM readings").map { Timestamp(millisecondsSince1970: $0) }
    }

    /// The bytes of the pages in use (the file's pages less the free ones), which
    /// `history_max_bytes` bounds.
    func usedBytes() throws(SQLiteError) -> Int64 {
        let pages = try connection.integer("PRAGMA page_count") ?? 0
        let free = try connection.integer("PRAGMA freelist_count") ?? 0
        return (pages - free) * (try connection.integer("PRAGMA page_size") ?? 4096)
    }

    /// `PRAGMA quick_check`: nil when the file is sound, else SQLite's first complaint.
    func quickCheck() throws(SQLiteError) -> String? {
        let result = try connection.texts("PRAGMA quick_check")
        return result == ["ok"] ? nil : result.first ?? "quick_check returned nothing"
    }

    // MARK: Writing

    /// Inserts `events` and sets `meta` values, in one transaction; returns the rows added.
    func commit(_ events: ArraySlice<Event>, meta: [(key: String, value: UInt64)], gaps: [HistoryGap] = [])
        throws(SQLiteError) -> Int
    {
        do {
            return try connection.transaction("commit") { () throws(SQLiteError) in
                for gap in gaps { try insert(gap) }
                var added = 0
                for event in events {
                    guard let identity = event.rowIdentity else { continue }
                    let device = try keys.device(identity.address)
                    let label = try keys.label(name: identity.name, profile: identity.profile)
                    guard insert.bindRow(event, device: device, label: label) else { continue }
                    try insert.run()
                    added += connection.changes
                }
                for (key, value) in meta { try write(key, value) }
                return added
            }
        } catch {
            keys.forget()
            throw error
        }
    }

    private func insert(_ gap: HistoryGap) throws(SQLiteError) {
        if let address = gap.address { addGap.bind(1, try keys.device(address)) } else { addGap.bindNull(1) }
        addGap.bind(2, gap.from.millisecondsSince1970)
        addGap.bind(3, gap.until.millisecondsSince1970)
        addGap.bind(4, gap.reason.rawValue)
        try addGap.run()
    }

    private func write(_ key: String, _ value: UInt64) throws(SQLiteError) {
        setMeta.bind(1, key)
        setMeta.bind(2, Int64(bitPattern: value))
        try setMeta.run()
    }

    /// Deletes at most `limit` rows older than `cutoff` (oldest first), or when `cutoff` is
    /// nil the `limit` rows with the lowest `seq`, in one transaction.
    func prune(before cutoff: Timestamp?, limit: Int) throws(SQLiteError) -> Pruned {
        try connection.transaction("prune") { () throws(SQLiteError) in
            let statement: SQLiteStatement
            if let cutoff {
                statement = pruneBefore
                statement.bind(1, cutoff.millisecondsSince1970)
                statement.bind(2, Int64(limit))
            } else {
                statement = pruneOldest
                statement.bind(1, Int64(limit))
            }
            if let cutoff {
                pruneGaps.bind(1, cutoff.millisecondsSince1970)
                try pruneGaps.run()
            }
            var pruned = Pruned()
            while try statement.step() {
                pruned.rows += 1
                pruned.throughSeq = max(pruned.throughSeq, UInt64(bitPattern: statement.integer(0) ?? 0))
                pruned.latestTime = max(pruned.latestTime, statement.integer(1) ?? 0)
            }
            return pruned
        }
    }

    /// What one prune step deleted.
    struct Pruned {
        var rows = 0
        /// The highest `seq` deleted.
        var throughSeq: UInt64 = 0
        /// The latest `time` deleted, in milliseconds.
        var latestTime: Int64 = .min
    }

    /// Copies the WAL into the database and truncates it (at a clean close).
    func checkpoint() throws(SQLiteError) {
        try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    // MARK: Queries

    /// Rows with `seq` > `since` (of `address`, or all), oldest first, at most `limit`.
    func events(address: BluetoothAddress?, since seq: UInt64, limit: Int) throws(SQLiteError) -> [Event] {
        let statement = address == nil ? afterSeq : afterSeqForAddress
        statement.bind(1, Self.bound(seq))
        statement.bind(2, Int64(limit))
        if let address { statement.bind(3, address.description) }
        return try rows(of: statement)
    }

    /// Rows with (`time`, `seq`) after (`from`, `after`) and `time` before `until`, in
    /// (`time`, `seq`) order, at most `limit`.
    func events(address: BluetoothAddress?, from: Timestamp, after seq: UInt64, until: Timestamp, limit: Int)
        throws(SQLiteError) -> [Event]
    {
        let statement = address == nil ? inTimeRange : inTimeRangeForAddress
        statement.bind(1, from.millisecondsSince1970)
        statement.bind(2, Self.bound(seq))
        statement.bind(3, until.millisecondsSince1970)
        statement.bind(4, Int64(limit))
        if let address { statement.bind(5, address.description) }
        return try rows(of: statement)
    }

    /// Gaps overlapping `from` ..< `until`, of `address` and of every device (all when nil),
    /// oldest first.
    func gaps(address: BluetoothAddress?, from: Timestamp, until: Timestamp) throws(SQLiteError) -> [HistoryGap] {
        gapsInRange.bind(1, from.millisecondsSince1970)
        gapsInRange.bind(2, until.millisecondsSince1970)
        gapsInRange.bind(3, address?.description)
        var gaps: [HistoryGap] = []
        while try gapsInRange.step() {
            gaps.append(
                HistoryGap(
                    address: gapsInRange.text(0).flatMap(BluetoothAddress.init),
                    from: Timestamp(millisecondsSince1970: gapsInRange.integer(1) ?? 0),
                    until: Timestamp(millisecondsSince1970: gapsInRange.integer(2) ?? 0),
                    reason: GapReason(rawValue: gapsInRange.text(3) ?? "") ?? .notHeard))
        }
        return gaps
    }

    /// A `seq` bound as SQLite's signed integer. Stored numbers never pass `Int64.max`, so a
    /// larger bound clamps to it: its bit pattern would be negative and select every row.
    private static func bound(_ seq: UInt64) -> Int64 {
        Int64(clamping: seq)
    }

    private func rows(of statement: SQLiteStatement) throws(SQLiteError) -> [Event] {
        var events: [Event] = []
        while try statement.step() { events.append(statement.rowEvent()) }
        return events
    }
}

extension Int64 {
    /// This many milliseconds as a time; nil for 0 (never recorded).
    fileprivate var nonZeroTimestamp: Timestamp? { self == 0 ? nil : Timestamp(millisecondsSince1970: self) }
}
