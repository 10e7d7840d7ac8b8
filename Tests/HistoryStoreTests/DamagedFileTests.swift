import BlectlProtocol
import Foundation
import TestSupport
import Testing

@testable import HistoryStore

@Suite("History store: damaged files")
struct DamagedFileTests {
    /// Fills a store with `count` readings and closes it cleanly.
    private func fill(_ fixture: StoreFixture, count: Int) async throws {
        let store = try fixture.open()
        readings(from: 1, count: count).forEach(store.append)
        await store.close()
    }

    /// Asserts that the damaged file was moved aside and a new one serves: `stored` are in
    /// it, and three more readings from `next` on are added.
    private func expectReplaced(
        _ fixture: StoreFixture, _ store: HistoryStore, next: UInt64, stored: [UInt64] = []
    ) async throws {
        let path = fixture.databasePath
        #expect(await eventually { fixture.files().contains { $0.hasPrefix("history.sqlite3.corrupt-") } })
        #expect(fixture.logged(.error, "\(path) is damaged"))
        #expect(fixture.logged(.error, "moved it aside to \(path).corrupt-"))
        readings(from: next, count: 3).forEach(store.append)
        await store.flush()
        let page = await store.page(address: nil, since: 0, limit: 10)
        #expect(page.events.map(\.seq) == stored + [next, next + 1, next + 2])
        #expect(!page.complete, "the readings in the damaged file are reported lost")
        #expect(await store.status().state == .ok)
        #expect(try rowCount(path) == stored.count + 3)
    }

    @Test("a file that is not a database is moved aside and a new one started")
    func notADatabase() async throws {
        try await StoreFixture.with { fixture in
            try await fill(fixture, count: 100)
            try Data(repeating: 0x42, count: 64 * 1024).write(to: URL(fileURLWithPath: fixture.databasePath))
            let store = try fixture.open()
            #expect(store.lastSeq == 100, "the lock file's floor keeps the numbers")
            try await expectReplaced(fixture, store, next: 101)
            await store.close()
        }
    }

    @Test("an empty garbage file with no lock file still opens (numbering from 1)")
    func garbageWithoutLockFile() async throws {
        try await StoreFixture.with { fixture in
            try Data("hello, I am not SQLite".utf8).write(to: URL(fileURLWithPath: fixture.databasePath))
            let store = try fixture.open()
            #expect(store.lastSeq == 0)
            #expect(await eventually { fixture.files().contains { $0.hasPrefix("history.sqlite3.corrupt-") } })
            await store.close()
        }
    }

    @Test("a truncated file is found at start and replaced")
    func truncated() async throws {
        try await StoreFixture.with { fixture in
            try await fill(fixture, count: 20_000)
            let handle = try FileHandle(forUpdating: URL(fileURLWithPath: fixture.databasePath))
            let size = try handle.seekToEnd()
            try handle.truncate(atOffset: size / 2)
            try handle.close()
            let store = try fixture.open()
            #expect(store.lastSeq == 20_000)
            try await expectReplaced(fixture, store, next: 20_001)
            await store.close()
        }
    }

    @Test("damage deep in the file, which opening does not read, is found by the check at start")
    func damagedDeepInside() async throws {
        try await StoreFixture.with { fixture in
            try await fill(fixture, count: 30_000)
            // A leaf of the readings table from the middle: neither end, and no index.
            let connection = try SQLiteConnection(path: fixture.databasePath)
            let pageSize = try #require(try connection.integer("PRAGMA page_size"))
            let leaf = try #require(
                try connection.integer(
                    """
                    SELECT pageno FROM dbstat WHERE name = 'readings' AND pagetype = 'leaf'
                    ORDER BY pageno LIMIT 1 OFFSET (SELECT count(*) / 2 FROM dbstat WHERE name = 'readings')
                    """))
            let handle = try FileHandle(forUpdating: URL(fileURLWithPath: fixture.databasePath))
            try handle.seek(toOffset: UInt64((leaf - 1) * pageSize))
            handle.write(Data(repeating: 0xFF, count: Int(pageSize)))
            try handle.close()
            let store = try fixture.open()
            #expect(store.lastSeq == 30_000)
            try await expectReplaced(fixture, store, next: 30_001)
            #expect(fixture.logged(.error, "the check at start"))
            await store.close()
        }
    }

    @Test("a page damaged while the store runs is found by the query that reads it; the file is replaced")
    func damagedAtRunTime() async throws {
        try await StoreFixture.with { fixture in
            try await fill(fixture, count: 30_000)
            let store = try fixture.open()
            _ = await store.status()  // the check at start has run: the file was sound then
            #expect(!fixture.files().contains { $0.contains("corrupt") })
            readings(from: 30_001, count: 5).forEach(store.append)
            await store.flush()  // in the file that will be lost
            // Readings waiting in memory survive the replacement.
            readings(from: 30_006, count: 5).forEach(store.append)
            // Pages 5 to 40 hold the oldest rows (and index pages); they left the small page
            // cache while the check at start read the whole file.
            let pageSize = try #require(try SQLiteConnection(path: fixture.databasePath).integer("PRAGMA page_size"))
            let handle = try FileHandle(forUpdating: URL(fileURLWithPath: fixture.databasePath))
            try handle.seek(toOffset: UInt64(4 * pageSize))
            handle.write(Data(repeating: 0xFF, count: Int(36 * pageSize)))
            try handle.close()
            let page = await store.page(address: nil, since: 0, limit: 100)
            #expect(page.events.map(\.seq) == (30_006...30_010).map { $0 })
            #expect(fixture.logged(.error, "reading history"))
            #expect(await !store.page(address: nil, since: 30_004, limit: 1).complete)
            #expect(await store.page(address: nil, since: 30_005, limit: 1).complete, "only the old file's are lost")
            try await expectReplaced(fixture, store, next: 30_011, stored: (30_006...30_010).map { $0 })
            await store.close()
        }
    }

    @Test("a database from a newer blectl is refused, not replaced")
    func newerSchema() async throws {
        try await StoreFixture.with { fixture in
            try await fill(fixture, count: 1)
            let newer = Schema.currentVersion + 1
            try SQLiteConnection(path: fixture.databasePath).execute("PRAGMA user_version = \(newer)")
            #expect(
                throws: HistoryStoreError.newerSchema(
                    path: fixture.databasePath, version: newer, known: Schema.currentVersion)
            ) {
                try fixture.open()
            }
            #expect(!fixture.files().contains { $0.contains("corrupt") })
            // The refused store let go of the lock.
            #expect(
                throws: HistoryStoreError.newerSchema(
                    path: fixture.databasePath, version: newer, known: Schema.currentVersion)
            ) {
                try fixture.open()
            }
        }
    }
}
