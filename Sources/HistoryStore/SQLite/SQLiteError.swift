import CSQLite

#if canImport(Glibc)
    import Glibc
#endif

/// A failed SQLite call: what was being done, SQLite's result code and its message.
struct SQLiteError: Error, CustomStringConvertible {
    /// What was being done, e.g. `"commit"`.
    var operation: String
    /// The extended result code, e.g. `SQLITE_IOERR_WRITE`.
    var code: Int32
    /// SQLite's message for the failure (`sqlite3_errmsg`), or the code's text.
    var message: String
    /// The `errno` of the system call that failed, 0 when none did.
    var systemErrno: Int32 = 0

    /// The primary result code, e.g. `SQLITE_IOERR` for `SQLITE_IOERR_WRITE`.
    var primaryCode: Int32 { code & 0xFF }

    /// The file is not a database or is damaged: it must be moved aside.
    var isCorruption: Bool { primaryCode == SQLITE_CORRUPT || primaryCode == SQLITE_NOTADB }

    /// The connection cannot write at all (read-only, cannot open): it is reopened before
    /// the next try, so a file system remounted read-write is seen.
    var needsReopen: Bool {
        [SQLITE_READONLY, SQLITE_CANTOPEN, SQLITE_PERM].contains(primaryCode)
    }

    /// A short reason for `status`, e.g. `disk full (SQLITE_FULL: No space left on device)`.
    var reason: String {
        let system = systemErrno == 0 ? "" : ": \(String(cString: strerror(systemErrno)))"
        let what: String
        switch primaryCode {
        case SQLITE_FULL: what = "disk full"
        case SQLITE_READONLY: what = "read-only"
        case SQLITE_IOERR: what = "I/O error"
        case SQLITE_CANTOPEN: what = "cannot open"
        case SQLITE_BUSY, SQLITE_LOCKED: what = "locked by another program"
        case SQLITE_CORRUPT, SQLITE_NOTADB: what = "damaged"
        default: what = "failed"
        }
        return "\(what) (\(String(cString: sqlite3_errstr(code)))\(system))"
    }

    /// A readable form, for logs.
    var description: String {
        let system = systemErrno == 0 ? "" : " [\(String(cString: strerror(systemErrno)))]"
        return "\(operation): \(message) (SQLite code \(code))\(system)"
    }
}
