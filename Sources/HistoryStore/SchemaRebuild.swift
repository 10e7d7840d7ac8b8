import BlectlProtocol
import CSQLite
import UnixSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Brings a database older than the first in-place step (version 1) to the current schema
/// by copying its rows into a new file and renaming that over it.
///
/// The rename is the only step that changes the database's name, so whatever stops the
/// rebuild (`kill -9`, a power cut, a full disk) leaves the old file whole at its name, or
/// the finished new one; a partial copy is removed and the rebuild starts over at the next
/// open. It needs room for both files at once (docs/history.md has the figures). Runs on
/// the writer's thread while the writer holds the lock file.
struct SchemaRebuild {
    let files: DatabaseFiles
    let migrations: [Migration]
    let log: Log
    let progress: HistoryStore.UpgradeProgress?

    /// Rows copied per transaction of the new file: bounds its WAL (about 1 MiB a batch).
    static let batch = 10_000
    /// Room a copied row may need at most, with its share of the indexes (65 bytes measured).
    static let bytesPerRow: Int64 = 100
    /// Room beyond the rows: the new file's WAL and SQLite's slack.
    static let spareBytes: Int64 = 16 << 20

    /// Copies the database at `files.path`, at schema `version`, into a new file at the
    /// current version and puts it in place.
    func run(from version: Int32) throws(SQLiteError) {
        if files.removeUpgrade() {
            log.notice("history: removed \(files.upgradePath), left by an upgrade that was stopped; starting it again")
        }
        let started = ContinuousClock.now
        let before = files.bytesOnDisk()
        let rows = try copy(from: version)
        do {
            try checkNoLog()
            try files.installUpgrade()
        } catch {
            _ = files.removeUpgrade()
            throw SQLiteError(
                operation: "install the upgraded database", code: SQLITE_IOERR, message: error.description,
                systemErrno: error.code)
        }
        log.notice(
            "history: upgraded \(files.path) from schema version \(version) to \(migrations.last?.version ?? 0): "
                + "\(rows) rows in \(Self.seconds(started.duration(to: .now))) s, \(before) bytes before, "
                + "\(files.bytesOnDisk()) after")
    }

    /// Copies every row and the counters into the upgrade file; returns the rows copied. Both
    /// connections are closed when it returns (SQLite then checkpoints and deletes their logs).
    private func copy(from version: Int32) throws(SQLiteError) -> Int {
        let old = try SQLiteConnection(path: files.path)
        try old.execute("PRAGMA busy_timeout = 1000")
        let total = Int(try old.integer("SELECT count(*) FROM readings") ?? 0)
        try checkRoom(for: total)
        log.notice(
            "history: upgrading \(files.path) from schema version \(version) to \(migrations.last?.version ?? 0) "
                + "(\(total) rows, into \(files.upgradePath)); blectld starts when it is done")
        let new: StoreDatabase
        do {
            new = try StoreDatabase(path: files.upgradePath, migrations: migrations)
        } catch {
            _ = files.removeUpgrade()
            throw Self.sqliteError(error)
        }
        do {
            let select = try old.prepare(
                "SELECT \(ReadingsTable.legacyColumns) FROM readings WHERE seq > ?1 ORDER BY seq LIMIT ?2")
            var copied = 0
            var after: Int64 = .min
            while true {
                select.bind(1, after)
                select.bind(2, Int64(Self.batch))
                var events: [Event] = []
                events.reserveCapacity(Self.batch)
                while try select.step() { events.append(select.rowEvent()) }
                guard let last = events.last?.seq else { break }
                copied += try new.commit(events[...], meta: [])
                after = Int64(bitPattern: last)
                progress?(copied, total)
            }
            let meta = try StoreDatabase.MetaKey.all.map { key throws(SQLiteError) in
                (key: key, value: try StoreDatabase.meta(key, in: old))
            }
            _ = try new.commit([], meta: meta)
            try new.checkpoint()
            return copied
        } catch {
            _ = files.removeUpgrade()
            throw error
        }
    }

    /// Refuses to start when the file system cannot hold the new file beside the old one.
    private func checkRoom(for rows: Int) throws(SQLiteError) {
        let needed = Int64(rows) * Self.bytesPerRow + Self.spareBytes
        guard let free = files.freeBytes(), free < needed else { return }
        throw SQLiteError(
            operation: "upgrade \(files.path)", code: SQLITE_FULL,
            message: "the upgrade needs about \(needed >> 20) MiB free beside the old file, \(free >> 20) MiB are")
    }

    /// The old file's log must be gone before the new file takes its name: SQLite would
    /// read it as the new file's.
    private func checkNoLog() throws(SystemError) {
        var info = stat()
        guard stat(files.walPath, &info) == 0, info.st_size > 0 else { return }
        throw SystemError("\(files.walPath) was not checkpointed when the old database closed", code: EBUSY)
    }

    /// `duration` in seconds, to a tenth.
    private static func seconds(_ duration: Duration) -> Double {
        (duration / .milliseconds(100)).rounded() / 10
    }

    private static func sqliteError(_ failure: Schema.Failure) -> SQLiteError {
        switch failure {
        case .sqlite(let error): error
        case .newer, .needsRebuild:
            SQLiteError(operation: "create the upgraded database", code: SQLITE_ERROR, message: "\(failure)")
        }
    }
}
