import CSQLite

/// A compiled statement: bind parameters (1-based), step through rows, reset, repeat.
///
/// Stepping to the end resets it; a caller that stops early calls ``reset()``, or the
/// statement keeps a read snapshot open, which holds back WAL checkpoints.
/// Bind failures (out of memory, a value too big) are remembered and thrown by the next
/// ``step()``, so a batch of binds is checked once.
final class SQLiteStatement {
    private let handle: OpaquePointer
    private let connection: SQLiteConnection
    private var bindFailure: Int32 = SQLITE_OK

    init(_ handle: OpaquePointer, connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    func bindNull(_ index: Int32) {
        note(sqlite3_bind_null(handle, index))
    }

    func bind(_ index: Int32, _ value: Int64) {
        note(sqlite3_bind_int64(handle, index, value))
    }

    func bind(_ index: Int32, _ value: Double?) {
        note(value.map { sqlite3_bind_double(handle, index, $0) } ?? sqlite3_bind_null(handle, index))
    }

    func bind(_ index: Int32, _ value: String?) {
        guard let value else { return note(sqlite3_bind_null(handle, index)) }
        var text = value
        note(text.withUTF8 { csqlite_bind_text(handle, index, $0.baseAddress, Int32($0.count)) })
    }

    /// Binds `bytes` at `index` as a BLOB (SQLite copies them).
    func bindBlob(_ index: Int32, _ bytes: UnsafeRawBufferPointer) {
        note(csqlite_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count)))
    }

    private func note(_ code: Int32) {
        if code != SQLITE_OK, bindFailure == SQLITE_OK { bindFailure = code }
    }

    /// Runs the statement to its next row: true when a row is ready, false when done.
    func step() throws(SQLiteError) -> Bool {
        if bindFailure != SQLITE_OK {
            let code = bindFailure
            reset()
            throw connection.error(code, "bind")
        }
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE:
            sqlite3_reset(handle)  // ends the read snapshot; the bindings stay
            return false
        case let code:
            let error = connection.error(code, String(cString: sqlite3_sql(handle)).prefix(60).description)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Steps to the end, for statements that return no rows.
    func run() throws(SQLiteError) {
        while try step() {}
    }

    /// Makes the statement ready to run again and clears its parameters.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        bindFailure = SQLITE_OK
    }

    /// Column `index` (0-based) of the current row as an integer; nil when NULL.
    func integer(_ index: Int32) -> Int64? {
        sqlite3_column_type(handle, index) == SQLITE_NULL ? nil : sqlite3_column_int64(handle, index)
    }

    /// Column `index` as a floating-point number; nil when NULL.
    func double(_ index: Int32) -> Double? {
        sqlite3_column_type(handle, index) == SQLITE_NULL ? nil : sqlite3_column_double(handle, index)
    }

    /// The type SQLite stored in column `index` (`SQLITE_INTEGER`, `SQLITE_BLOB`, …).
    func columnType(_ index: Int32) -> Int32 {
        sqlite3_column_type(handle, index)
    }

    /// Column `index` as bytes; empty when NULL or empty.
    func blob(_ index: Int32) -> UnsafeRawBufferPointer {
        let bytes = sqlite3_column_blob(handle, index)
        return UnsafeRawBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(handle, index)))
    }

    /// Column `index` as text; nil when NULL.
    func text(_ index: Int32) -> String? {
        guard let bytes = sqlite3_column_text(handle, index) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }
}
