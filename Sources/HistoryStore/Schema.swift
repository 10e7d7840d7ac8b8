/// One step of the schema: the statements that take a database from the version before to
/// `version`.
struct Migration: Sendable {
    /// The `PRAGMA user_version` the database has after this step.
    let version: Int32
    /// The statements, run in one transaction together with the new version number.
    let statements: [String]
}

/// The database's schema, versioned with `PRAGMA user_version` (0: a new, empty file).
///
/// A new file gets every step of ``migrations`` in order. A later version is one more entry
/// there: each step runs in its own transaction, so a database is always at one version or
/// the next, never in between. Versions older than the first step (version 1) are not
/// upgraded in place: ``SchemaRebuild`` copies them into a new file (docs/history.md).
enum Schema {
    /// Every step from an empty file to the current schema, in order.
    static let migrations: [Migration] = [version2, version3]

    /// The version this code writes.
    static var currentVersion: Int32 { migrations.last!.version }

    /// Version 2: readings keyed by small integers for their device and its name and profile.
    ///
    /// A row is about half the size of version 1's (69 against 132 bytes, docs/history.md):
    /// the address, name and profile texts live once in `devices` and `labels`, and `raw` is
    /// the value's bytes as a BLOB where version 1 spelt them in hex (a text profile's value
    /// stays TEXT; ``ReadingsTable`` tells them apart by the stored type). A `labels` row is a
    /// name and a profile as a device had them when the reading arrived, so a row keeps what it
    /// meant after a rename; a device that alternates between two formats uses two labels.
    /// `source` is NULL for a live reading and `memory` for one read back from the sensor's
    /// memory. `seq` is the rowid, so the indexes are in effect `(device, seq)` and `(time, seq)`.
    /// `meta` holds `seq_floor`, `forgotten_through` and `closed_at` (docs/history.md). `gaps`
    /// holds time ranges without readings and why (`HistoryGap`); `device` NULL is every device.
    static let version2 = Migration(
        version: 2,
        statements: [
            "CREATE TABLE devices (id INTEGER PRIMARY KEY, address TEXT NOT NULL UNIQUE)",
            "CREATE TABLE labels (id INTEGER PRIMARY KEY, name TEXT, profile TEXT)",
            "CREATE INDEX labels_by_text ON labels(name, profile)",
            """
            CREATE TABLE readings (
                seq INTEGER PRIMARY KEY,
                time INTEGER NOT NULL,
                device INTEGER NOT NULL,
                label INTEGER NOT NULL,
                celsius REAL,
                humidity REAL,
                battery REAL,
                pressure REAL,
                voltage REAL,
                unit TEXT,
                raw BLOB NOT NULL,
                error TEXT,
                source TEXT
            )
            """,
            "CREATE INDEX readings_by_device ON readings(device)",
            "CREATE INDEX readings_by_time ON readings(time)",
            "CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID",
            """
            CREATE TABLE gaps (
                id INTEGER PRIMARY KEY,
                device INTEGER,
                start INTEGER NOT NULL,
                end INTEGER NOT NULL,
                reason TEXT NOT NULL
            )
            """,
            "CREATE INDEX gaps_by_start ON gaps(start)",
        ])

    /// Version 3 (issue 34): columns for carbon dioxide (ppm) and the dew point (°C), and the
    /// probe a reading came from on a device with several (`NULL`: the device's only one).
    ///
    /// `ALTER TABLE … ADD COLUMN` with no default changes only the schema text: the rows stay
    /// as written and read `NULL` in the new columns, so the step is instant on any size of file.
    static let version3 = Migration(
        version: 3,
        statements: [
            "ALTER TABLE readings ADD COLUMN co2 REAL",
            "ALTER TABLE readings ADD COLUMN dew_point REAL",
            "ALTER TABLE readings ADD COLUMN probe INTEGER",
        ])

    /// Why a database cannot be brought to the current version in place.
    enum Failure: Error {
        /// A newer blectl wrote it: this one must not touch it.
        case newer(found: Int32, known: Int32)
        /// An older version that is rebuilt into a new file (``SchemaRebuild``), not upgraded in place.
        case needsRebuild(found: Int32)
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
        if found > 0, let first = migrations.first, found < first.version { throw .needsRebuild(found: found) }
        for migration in migrations where migration.version > found {
            do {
                try apply(migration, to: connection)
            } catch {
                throw .sqlite(error)
            }
        }
        return found
    }

    /// Runs one step and sets its version, in one transaction.
    static func apply(_ migration: Migration, to connection: SQLiteConnection) throws(SQLiteError) {
        try connection.transaction("upgrade to schema version \(migration.version)") { () throws(SQLiteError) in
            for statement in migration.statements { try connection.execute(statement) }
            try connection.execute("PRAGMA user_version = \(migration.version)")
        }
    }
}
