import CSQLite

/// One connection to an SQLite database file, used by one thread at a time.
///
/// Opened without SQLite's own mutexes (`SQLITE_OPEN_NOMUTEX`): the store confines each
/// connection to its writer thread.
final class SQLiteConnection {
    let handle: OpaquePointer
    /// The file, for messages.
    let path: String

    /// Opens (creating when missing) the database at `path`.
    init(path: String) throws(SQLiteError) {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            let systemErrno = handle.map { sqlite3_system_errno($0) } ?? 0
            sqlite3_close_v2(handle)
            throw SQLiteError(operation: "open \(path)", code: code, message: message, systemErrno: systemErrno)
        }
        self.handle = handle
        self.path = path
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit {
        // Statements are finalized first (they hold the connection); `_v2` closes the
        // connection once the last one is.
        sqlite3_close_v2(handle)
    }

    /// Whether the file could only be opened for reading (a read-only file or file system).
    var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    /// Whether a transaction is open (SQLite rolls some back by itself on errors).
    var inTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Rows the last `INSERT`, `UPDATE` or `DELETE` changed.
    var changes: Int { Int(sqlite3_changes64(handle)) }

    /// Runs one or more statements that return no rows the caller wants.
    func execute(_ sql: String) throws(SQLiteError) {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw error(code, "\(sql.prefix(60))") }
    }

    /// Compiles `sql` once, to be bound and stepped many times.
    func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else { throw error(code, "prepare \(sql.prefix(60))") }
        return SQLiteStatement(statement, connection: self)
    }

    /// The first column of the first row of `sql`, or nil when it returns no row or NULL.
    func integer(_ sql: String) throws(SQLiteError) -> Int64? {
        let statement = try prepare(sql)
        guard try statement.step() else { return nil }
        return statement.integer(0)
    }

    /// Every row's first column of `sql` as text (for `PRAGMA quick_check`).
    func texts(_ sql: String) throws(SQLiteError) -> [String] {
        let statement = try prepare(sql)
        var texts: [String] = []
        while try statement.step() { texts.append(statement.text(0) ?? "") }
        return texts
    }

    /// Runs `body` in one `BEGIN IMMEDIATE … COMMIT`, rolled back when it throws.
    func transaction<T>(_ operation: String, _ body: () throws(SQLiteError) -> T) throws(SQLiteError) -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            // SQLite has already rolled back after some errors (SQLITE_FULL among them).
            if inTransaction { _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil) }
            throw SQLiteError(
                operation: "\(operation): \(error.operation)", code: error.code, message: error.message,
                systemErrno: error.systemErrno)
        }
    }

    /// The error for a result `code` of an `operation` on this connection.
    func error(_ code: Int32, _ operation: String) -> SQLiteError {
        SQLiteError(
            operation: operation, code: code, message: String(cString: sqlite3_errmsg(handle)),
            systemErrno: sqlite3_system_errno(handle))
    }
}
