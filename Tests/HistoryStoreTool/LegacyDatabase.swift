import CSQLite
import UnixSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A history database as blectl wrote it before schema version 2 (until 2026-12-05): the
/// rows a store upgrade meets on a user's disk. Its schema is frozen here, as it shipped.
///
/// The rows mix what real files hold: 200 devices, Pi thermometers sending text ("117.1 F")
/// and advertising sensors whose raw value is hex, a rename half way through, devices
/// without a name, and a reading error every 97 rows.
enum LegacyDatabase {
    /// Version 1's statements, as Sources/HistoryStore/Schema.swift had them at a6fe919.
    static let schema = """
        CREATE TABLE readings (seq INTEGER PRIMARY KEY, time INTEGER NOT NULL, address TEXT NOT NULL, name TEXT,
            profile TEXT, celsius REAL, humidity REAL, battery REAL, pressure REAL, voltage REAL, unit TEXT,
            raw TEXT NOT NULL, error TEXT);
        CREATE INDEX readings_by_address ON readings(address);
        CREATE INDEX readings_by_time ON readings(time);
        CREATE TABLE meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
        PRAGMA user_version = 1;
        """

    /// Every row from one `INSERT … SELECT` over a counter: device `i % 200`, one reading a
    /// second up to now (inside any retention a test sets); even devices are Pi thermometers (text, °F), odd ones BTHome
    /// sensors (hex, with humidity and battery).
    static func rows(_ count: Int) -> String {
        """
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count))
        INSERT INTO readings SELECT i, (unixepoch() - \(count)) * 1000 + i * 1000,
            printf('DC:A6:32:00:%02X:%02X', (i % 200) / 256, i % 200),
            CASE WHEN i % 200 = 7 THEN NULL WHEN i > \(count / 2) AND i % 2 = 0 THEN 'Thermometer 2'
                 WHEN i % 2 = 0 THEN 'Thermometer' ELSE printf('ATC_%04X', i % 200) END,
            CASE WHEN i % 97 = 0 THEN NULL WHEN i % 2 = 0 THEN 'pi-cputemp' ELSE 'bthome' END,
            CASE WHEN i % 97 = 0 THEN NULL ELSE round(40 + (i % 1000) / 100.0, 2) END,
            CASE WHEN i % 97 = 0 OR i % 2 = 0 THEN NULL ELSE 45.5 END,
            CASE WHEN i % 97 = 0 OR i % 2 = 0 THEN NULL ELSE 87 END,
            NULL, NULL,
            CASE WHEN i % 97 = 0 THEN NULL WHEN i % 2 = 0 THEN 'F' ELSE 'C' END,
            CASE WHEN i % 97 = 0 THEN '6e616e' WHEN i % 2 = 0 THEN printf('%.1f F', 104 + (i % 100) / 10.0)
                 ELSE printf('40%08x0266%08x', i, i * 7) END,
            CASE WHEN i % 97 = 0 THEN 'not a temperature' ELSE NULL END
        FROM n;
        INSERT INTO meta VALUES ('seq_floor', \(count + 200_000)), ('forgotten_through', 0);
        """
    }

    /// Writes a version-1 database of `rows` rows at `path` (which must not exist).
    static func write(_ path: String, rows: Int) throws(SystemError) {
        var handle: OpaquePointer?
        guard sqlite3_open(path, &handle) == SQLITE_OK, let handle else {
            throw SystemError("sqlite3_open(\(path))", code: EIO)
        }
        defer { sqlite3_close(handle) }
        for sql in ["PRAGMA page_size = 1024", "PRAGMA journal_mode = WAL", schema, "BEGIN", Self.rows(rows), "COMMIT"]
        {
            guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else {
                throw SystemError("\(sql.prefix(40)): \(String(cString: sqlite3_errmsg(handle)))", code: EIO)
            }
        }
    }
}
