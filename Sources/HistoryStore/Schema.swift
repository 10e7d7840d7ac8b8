/// One step of the schema: the statements that take a database from `version - 1` to
/// `version`.
struct Migration: Sendable {
    /// The `PRAGMA user_version` the database has after this step.
    let version: Int32
    /// The statements, run in one transaction together with the new version number.
    let statements: [String]
}

/// The database's schema, versioned with `PRAGMA user_version` (0: a new, empty file).
///
/// The next version is one more entry in ``migrations``: each step runs in its own
/// transaction, so a database is always at one version or the next, never in between.
enum Schema {
    /// Every step from an empty file to the current schema, in order.
    static let migrations: [Migration] = [version1]

    /// The version this code writes.
    static var currentVersion: Int32 { migrations.last!.version }

    /// Version 1: the readings and reading errors, and the store's own counters.
    ///
    /// `seq` is the rowid, so the two indexes are in effect `(address, seq)` and
    /// `(time, seq)` (SQLite appends the rowid to every index entry) without storing
    /// `seq` twice. `meta` holds `seq_floor` (every sequence number handed out so far is at
    /// or below it) and `forgotten_through` (the highest one lost to a drop or a damaged file).
    static let version1 = Migration(
        version: 1,
        statements: [
            """
            CREATE TABLE readings (
                seq INTEGER PRIMARY KEY,
                time INTEGER NOT NULL,
                address TEXT NOT NULL,
                name TEXT,
                profile TEXT,
                celsius REAL,
                humidity REAL,
                battery REAL,
                pressure REAL,
                voltage REAL,
                unit TEXT,
                raw TEXT NOT NULL,
                error TEXT
            )
            """,
            "CREATE INDEX readings_by_address ON readings(address)",
            "CREATE INDEX readings_by_time ON readings(time)",
            "CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID",
        ])

    /// Why a database cannot be brought to the current version.
    enum Failure: Error {
        /// A newer blectl wrote it: this one must not touch it.
        case newer(found: Int32, known: Int32)
        /// SQLite failed (the step was rolled back).
        case sqlite(SQLiteError)
    }

    /// The database's version.
    static func version(of connection: SQLiteConnection) throws(SQLiteError) -> Int32 {
        Int32(try connection.integer("PRAGMA user_version") ?? 0)
    }

    /// Applies the steps of `migrations` the database lacks; returns the version it had.
    static func migrate(_ connection: SQLiteConnection, with migrations: [Migration] = migrations)
        throws(Failure) -> Int32
    {
        let found: Int32
        do { found = try version(of: connection) } catch { throw .sqlite(error) }
        let known = migrations.last?.version ?? 0
        guard found <= known else { throw .newer(found: found, known: known) }
        for migration in migrations where migration.version > found {
            do {
                try connection.transaction("upgrade to schema version \(migration.version)") { () throws(SQLiteError) in
                    for statement in migration.statements { try connection.execute(statement) }
                    try connection.execute("PRAGMA user_version = \(migration.version)")
                }
            } catch {
                throw .sqlite(error)
            }
        }
        return found
    }
}
