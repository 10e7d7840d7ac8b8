/*
 * sqlite_floor: what SQLite itself costs per reading in blectld's history store, from C.
 *
 * The store's schema (Sources/HistoryStore/Schema.swift, version 1), its settings (WAL,
 * synchronous=FULL, cache_size=-1024) and its statement (INSERT OR IGNORE, 13 parameters),
 * fed the rows a GATT thermometer's readings make: N thermometers in turn, one reading each
 * per row, committed in batches as the store's writer does. Nothing else runs, so the CPU
 * per row is the least any store of these rows in SQLite pays on this machine.
 *
 *   sqlite_floor --db FILE [--rows N] [--batch B] [--devices D] [--schema 2]   (FILE must not exist)
 *
 * N is rounded up to whole batches (default 100,000 rows in batches of 10,000, 200 devices).
 *
 * --schema 2: what the store writes since 2026-12-05 (Schema.swift, version 2): devices and
 * labels tables with integer keys in place of each row's address, name and profile texts,
 * and the raw value as a BLOB. --schema 1 is the version before, for comparison.
 *
 * --measure-last M: fill the table with the first N - M rows unmeasured, then measure the
 * last M: the cost per row at a table of about N rows (how it grows with the table).
 * --cache-kib K: SQLite's page cache (the store's is 1024 KiB).
 *
 * Prints "rows N batch B: U us CPU per row (user+system), W us wall, schema S" after a warm-up
 * batch.
 * Built by bench/lib.sh (bench_tools); run by bench/run.sh after the table.
 */
#define _GNU_SOURCE
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static void check(sqlite3 *db, int rc, const char *what) {
    if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
        fprintf(stderr, "sqlite_floor: %s: %s\n", what, sqlite3_errmsg(db));
        exit(1);
    }
}

static void exec(sqlite3 *db, const char *sql) { check(db, sqlite3_exec(db, sql, NULL, NULL, NULL), sql); }

static double cpu_seconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_utime.tv_sec + usage.ru_stime.tv_sec + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

static double wall_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int schema = 1;

static void address_of(int device, char address[18]) {
    snprintf(address, 18, "DC:A6:32:00:%02X:%02X", device >> 8, device & 0xFF);
}

/* The tables and the insert statement of `schema`; version 1 is Schema.swift's. */
static sqlite3_stmt *create_tables(sqlite3 *db, int devices) {
    const char *insert;
    if (schema == 1) {
        exec(db, "CREATE TABLE readings (seq INTEGER PRIMARY KEY, time INTEGER NOT NULL, address TEXT NOT NULL, "
                 "name TEXT, profile TEXT, celsius REAL, humidity REAL, battery REAL, pressure REAL, voltage REAL, "
                 "unit TEXT, raw TEXT NOT NULL, error TEXT)");
        exec(db, "CREATE INDEX readings_by_address ON readings(address)");
        insert = "INSERT OR IGNORE INTO readings (seq, time, address, name, profile, celsius, humidity, battery, "
                 "pressure, voltage, unit, raw, error) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)";
    } else {
        exec(db, "CREATE TABLE devices (id INTEGER PRIMARY KEY, address TEXT NOT NULL UNIQUE)");
        exec(db, "CREATE TABLE labels (id INTEGER PRIMARY KEY, name TEXT, profile TEXT)");
        exec(db, "CREATE INDEX labels_by_text ON labels(name, profile)");
        exec(db, "CREATE TABLE readings (seq INTEGER PRIMARY KEY, time INTEGER NOT NULL, device INTEGER NOT NULL, "
                 "label INTEGER NOT NULL, celsius REAL, humidity REAL, battery REAL, pressure REAL, voltage REAL, "
                 "unit TEXT, raw BLOB NOT NULL, error TEXT, source TEXT)");
        exec(db, "CREATE INDEX readings_by_device ON readings(device)");
        exec(db, "BEGIN");
        char address[18], sql[160];
        exec(db, "INSERT INTO labels VALUES (1, 'Thermometer', 'pi-cputemp')");
        for (int device = 1; device <= devices; device++) {
            address_of(device, address);
            snprintf(sql, sizeof sql, "INSERT INTO devices VALUES (%d, '%s')", device, address);
            exec(db, sql);
        }
        exec(db, "COMMIT");
        insert = "INSERT OR IGNORE INTO readings (seq, time, device, label, celsius, humidity, battery, pressure, "
                 "voltage, unit, raw, error, source) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)";
    }
    exec(db, "CREATE INDEX readings_by_time ON readings(time)");
    sqlite3_stmt *statement;
    check(db, sqlite3_prepare_v2(db, insert, -1, &statement, NULL), "prepare");
    return statement;
}

/* A thermometer's reading as a row of `schema`: the characteristic's UTF-8 value "40.1" is
 * `raw` (hex text in version 1, the bytes in 2). */
static void bind_reading(sqlite3_stmt *insert, long seq, int device, double celsius) {
    char address[18], text[8], raw[16];
    int length = snprintf(text, sizeof text, "%.1f", celsius), next = 1;
    sqlite3_bind_int64(insert, next++, seq);
    sqlite3_bind_int64(insert, next++, 1764633600000LL + seq);
    if (schema == 1) {
        address_of(device, address);
        sqlite3_bind_text(insert, next++, address, -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(insert, next++, "Thermometer", -1, SQLITE_TRANSIENT);
        sqlite3_bind_text(insert, next++, "pi-cputemp", -1, SQLITE_TRANSIENT);
    } else {
        sqlite3_bind_int(insert, next++, device);
        sqlite3_bind_int(insert, next++, 1);
    }
    sqlite3_bind_double(insert, next++, celsius);
    for (int quantity = 0; quantity < 4; quantity++) sqlite3_bind_null(insert, next++);
    sqlite3_bind_text(insert, next++, "C", -1, SQLITE_TRANSIENT);
    if (schema == 1) {
        for (int b = 0; b < length; b++) sprintf(raw + 2 * b, "%02x", (unsigned char)text[b]);
        sqlite3_bind_text(insert, next++, raw, -1, SQLITE_TRANSIENT);
    } else {
        sqlite3_bind_blob(insert, next++, text, length, SQLITE_TRANSIENT);
    }
    sqlite3_bind_null(insert, next++);
    if (schema == 2) sqlite3_bind_null(insert, next);
}

/* One batch of `batch` rows from `*seq` on, in one transaction. */
static void insert_batch(sqlite3 *db, sqlite3_stmt *insert, long *seq, long batch, int devices) {
    exec(db, "BEGIN");
    for (long i = 0; i < batch; i++, (*seq)++) {
        bind_reading(insert, *seq, (int)(*seq % devices) + 1, 40.0 + (double)(*seq % 251) / 10.0);
        check(db, sqlite3_step(insert), "insert");
        sqlite3_reset(insert);
    }
    exec(db, "COMMIT");
}

int main(int argc, char **argv) {
    const char *path = NULL;
    long rows = 100000, batch = 10000, measured = 0, cache_kib = 1024;
    int devices = 200;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--db") == 0 && i + 1 < argc) path = argv[++i];
        else if (strcmp(argv[i], "--rows") == 0 && i + 1 < argc) rows = atol(argv[++i]);
        else if (strcmp(argv[i], "--batch") == 0 && i + 1 < argc) batch = atol(argv[++i]);
        else if (strcmp(argv[i], "--devices") == 0 && i + 1 < argc) devices = atoi(argv[++i]);
        else if (strcmp(argv[i], "--schema") == 0 && i + 1 < argc) schema = atoi(argv[++i]);
        else if (strcmp(argv[i], "--measure-last") == 0 && i + 1 < argc) measured = atol(argv[++i]);
        else if (strcmp(argv[i], "--cache-kib") == 0 && i + 1 < argc) cache_kib = atol(argv[++i]);
        else {
            fprintf(stderr, "usage: sqlite_floor --db FILE [--rows N] [--batch B] [--devices D] [--schema 1|2] "
                            "[--measure-last M] [--cache-kib K]\n");
            return 2;
        }
    }
    if (!path || rows < 1 || batch < 1 || devices < 1 || devices > 65535 || schema < 1 || schema > 2) {
        fprintf(stderr, "sqlite_floor: need --db, positive --rows, --batch and --devices (up to 65535), "
                        "--schema 1 or 2\n");
        return 2;
    }
    if (access(path, F_OK) == 0) {
        fprintf(stderr, "sqlite_floor: %s exists: it starts from a new file\n", path);
        return 2;
    }
    sqlite3 *db;
    if (sqlite3_open(path, &db) != SQLITE_OK) check(db, SQLITE_ERROR, "open");
    exec(db, "PRAGMA page_size = 1024");
    exec(db, "PRAGMA journal_mode = WAL");
    exec(db, "PRAGMA synchronous = FULL");
    char cache[64];
    snprintf(cache, sizeof cache, "PRAGMA cache_size = -%ld", cache_kib);
    exec(db, cache);
    exec(db, "PRAGMA journal_size_limit = 4194304");
    sqlite3_stmt *insert = create_tables(db, devices);
    long seq = 1;
    insert_batch(db, insert, &seq, batch, devices); /* warm-up: pages and statement */
    long filled = 0;
    if (measured > 0 && measured < rows)
        for (; filled + measured < rows; filled += batch) insert_batch(db, insert, &seq, batch, devices);
    double cpu0 = cpu_seconds(), wall0 = wall_seconds();
    long done = 0;
    for (; filled + done < rows; done += batch) insert_batch(db, insert, &seq, batch, devices);
    double cpu = cpu_seconds() - cpu0, wall = wall_seconds() - wall0;
    printf("rows %ld batch %ld: %.2f us CPU per row (user+system), %.2f us wall, schema %d\n", done, batch,
           cpu / done * 1e6, wall / done * 1e6, schema);
    if (filled > 0) printf("after %ld rows unmeasured\n", filled + batch);
    sqlite3_finalize(insert);
    sqlite3_close(db);
    return 0;
}
