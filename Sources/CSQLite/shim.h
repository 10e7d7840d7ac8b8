// CSQLite: what Swift needs from libsqlite3.
//
// Swift imports SQLite's C API directly, except SQLITE_TRANSIENT, a macro that casts -1
// to a function pointer. The binders below pass it, so SQLite copies the value before
// they return. Every shim is prefixed `csqlite_`.
#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H

#include <sqlite3.h>

/// Binds `count` bytes of UTF-8 text at `index`; SQLite keeps its own copy.
static inline int csqlite_bind_text(sqlite3_stmt *statement, int index, const char *text, int count) {
    return sqlite3_bind_text(statement, index, text, count, SQLITE_TRANSIENT);
}

/// Binds `count` bytes at `index` as a BLOB; SQLite keeps its own copy. A zero `count` binds
/// an empty BLOB (a null `bytes` pointer with `sqlite3_bind_blob` would bind NULL).
static inline int csqlite_bind_blob(sqlite3_stmt *statement, int index, const void *bytes, int count) {
    return count == 0 ? sqlite3_bind_zeroblob(statement, index, 0)
                      : sqlite3_bind_blob(statement, index, bytes, count, SQLITE_TRANSIENT);
}

#endif
