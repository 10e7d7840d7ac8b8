import Foundation
import Testing

@testable import HistoryStore

@Suite("History store: schema versions")
struct SchemaTests {
    /// A next version as a test adds it: a column, and an index on it.
    static let version2 = Migration(
        version: 2,
        statements: [
            "ALTER TABLE readings ADD COLUMN rssi INTEGER",
            "CREATE INDEX readings_by_rssi ON readings(rssi)",
        ])

    @Test("a new file gets the current version")
    func newFile() async throws {
        try await StoreFixture.with { fixture in
            let store = try fixture.open()
            await store.close()
            #expect(try Schema.version(of: SQLiteConnection(path: fixture.databasePath)) == Schema.currentVersion)
            #expect(Schema.currentVersion == 1)
        }
    }

    @Test("a version-1 database is upgraded by the next step, its readings kept")
    func upgradeFromVersion1() async throws {
        try await StoreFixture.with { fixture in
            let first = try fixture.open()
            readings(from: 1, count: 100).forEach(first.append)
            await first.close()

            let upgraded = try fixture.open(migrations: Schema.migrations + [Self.version2])
            #expect(upgraded.lastSeq == 100)
            #expect(await allEvents(upgraded).count == 100)
            readings(from: 101, count: 5).forEach(upgraded.append)
            await upgraded.close()
            let connection = try SQLiteConnection(path: fixture.databasePath)
            #expect(try Schema.version(of: connection) == 2)
            #expect(try connection.integer("SELECT count(*) FROM readings WHERE rssi IS NULL") == 105)
        }
    }

    @Test("a step that fails leaves the database at the version before")
    func failedStepRollsBack() async throws {
        try await StoreFixture.with { fixture in
            let first = try fixture.open()
            readings(from: 1, count: 10).forEach(first.append)
            await first.close()
            let broken = Migration(version: 2, statements: ["ALTER TABLE readings ADD COLUMN rssi INTEGER", "NOT SQL"])
            let connection = try SQLiteConnection(path: fixture.databasePath)
            #expect(throws: Schema.Failure.self) { try Schema.migrate(connection, with: Schema.migrations + [broken]) }
            #expect(try Schema.version(of: connection) == 1)
            #expect(
                try connection.integer("SELECT count(*) FROM pragma_table_info('readings') WHERE name = 'rssi'") == 0)
            #expect(try connection.integer("SELECT count(*) FROM readings") == 10)
        }
    }
}
