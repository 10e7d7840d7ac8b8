import BlectlProtocol
import Foundation
import SensorModel
import Testing

@testable import HistoryStore

@Suite("History store: schema versions")
struct SchemaTests {
    /// A next version as a test adds it: a column, and an index on it.
    static let nextVersion = Migration(
        version: Schema.currentVersion + 1,
        statements: [
            "ALTER TABLE readings ADD COLUMN rssi INTEGER",
            "CREATE INDEX readings_by_rssi ON readings(rssi)",
        ])

    @Test("a new file gets the current version, with devices and labels beside the readings")
    func newFile() async throws {
        try await StoreFixture.with { fixture in
            let store = try fixture.open()
            readings(from: 1, count: 10).forEach(store.append)
            await store.close()
            let connection = try SQLiteConnection(path: fixture.databasePath)
            #expect(try Schema.version(of: connection) == Schema.currentVersion)
            #expect(Schema.currentVersion == 3)
            #expect(try connection.integer("SELECT count(*) FROM devices") == 2)
            #expect(try connection.integer("SELECT count(*) FROM labels") == 1)
        }
    }

    @Test(
        "a version-2 database with rows is upgraded to version 3: its rows kept, carbon dioxide, dew point and probe added"
    )
    func upgradeFromVersion2() async throws {
        try await StoreFixture.with { fixture in
            let time = Timestamp.now().adding(milliseconds: -60_000)
            try Self.writeVersion2(fixture.databasePath, rows: 100, time: time)
            let store = try fixture.open()
            let kept = await allEvents(store)
            #expect(kept.count == 100)
            #expect(kept.first == Self.version2Reading(seq: 1, time: time))
            #expect(kept.last == Self.version2Reading(seq: 100, time: time))
            let new = Event.reading(
                Reading(
                    seq: 101, time: .now(), address: "A4:C1:38:00:00:02", name: "Meter Pro CO2",
                    measurement: Measurement(
                        profile: "switchbot", quantities: Quantities([.temperature: 21.5, .co2: 812, .dewPoint: 9.25]),
                        raw: "00")))
            let probe = Event.reading(
                Reading(
                    seq: 102, time: .now(), address: "A4:C1:38:00:00:03", name: "H5184",
                    measurement: Measurement(
                        profile: "govee-meat", quantities: Quantities([.temperature: 61.5]), raw: "00", probe: 4)))
            store.append(new)
            store.append(probe)
            await store.flush()
            #expect(await allEvents(store).suffix(2) == [new, probe])
            await store.close()
            let connection = try SQLiteConnection(path: fixture.databasePath)
            #expect(try Schema.version(of: connection) == 3)
            #expect(
                try connection.integer("SELECT count(*) FROM readings WHERE co2 IS NULL AND dew_point IS NULL") == 101)
            #expect(try connection.integer("SELECT probe FROM readings WHERE seq = 102") == 4)
            #expect(try connection.integer("SELECT count(*) FROM readings WHERE probe IS NULL") == 101)
            #expect(
                try connection.integer(
                    "SELECT count(*) FROM pragma_table_info('readings') WHERE name IN ('co2', 'dew_point', 'probe')")
                    == 3)
        }
    }

    /// Writes a version-2 database as blectl wrote it before version 3: `rows` BTHome readings,
    /// one a second from `time`, by SQL (the store's insert has version 3's columns).
    static func writeVersion2(_ path: String, rows: Int, time: Timestamp) throws {
        let connection = try SQLiteConnection(path: path)
        #expect(try Schema.migrate(connection, with: [Schema.version2]) == 0)
        try connection.execute("INSERT INTO devices VALUES (1, 'A4:C1:38:00:00:01')")
        try connection.execute("INSERT INTO labels VALUES (1, 'ATC_000001', 'bthome')")
        try connection.execute(
            """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
            INSERT INTO readings SELECT i, \(time.millisecondsSince1970) + i * 1000, 1, 1, 20 + i / 100.0, 45.5, 87,
                NULL, 3.1, 'C', x'4012', NULL, NULL FROM n
            """)
    }

    /// The reading ``writeVersion2(_:rows:time:)`` wrote at `seq`.
    static func version2Reading(seq: UInt64, time: Timestamp) -> Event {
        .reading(
            Reading(
                seq: seq, time: time.adding(milliseconds: Int64(seq) * 1000), address: "A4:C1:38:00:00:01",
                name: "ATC_000001",
                measurement: Measurement(
                    profile: "bthome",
                    quantities: Quantities([
                        .temperature: 20 + Double(seq) / 100, .humidity: 45.5, .battery: 87, .voltage: 3.1,
                    ]), raw: "4012")))
    }

    @Test("a database is upgraded by a next step, its readings kept")
    func upgradeByNextStep() async throws {
        try await StoreFixture.with { fixture in
            let first = try fixture.open()
            readings(from: 1, count: 100).forEach(first.append)
            await first.close()

            let upgraded = try fixture.open(migrations: Schema.migrations + [Self.nextVersion])
            #expect(upgraded.lastSeq == 100)
            #expect(await allEvents(upgraded).count == 100)
            readings(from: 101, count: 5).forEach(upgraded.append)
            await upgraded.close()
            let connection = try SQLiteConnection(path: fixture.databasePath)
            #expect(try Schema.version(of: connection) == Schema.currentVersion + 1)
            #expect(try connection.integer("SELECT count(*) FROM readings WHERE rssi IS NULL") == 105)
        }
    }

    @Test("a step that fails leaves the database at the version before")
    func failedStepRollsBack() async throws {
        try await StoreFixture.with { fixture in
            let first = try fixture.open()
            readings(from: 1, count: 10).forEach(first.append)
            await first.close()
            let broken = Migration(
                version: Schema.currentVersion + 1,
                statements: ["ALTER TABLE readings ADD COLUMN rssi INTEGER", "NOT SQL"])
            let connection = try SQLiteConnection(path: fixture.databasePath)
            #expect(throws: Schema.Failure.self) { try Schema.migrate(connection, with: Schema.migrations + [broken]) }
            #expect(try Schema.version(of: connection) == Schema.currentVersion)
            #expect(
                try connection.integer("SELECT count(*) FROM pragma_table_info('readings') WHERE name = 'rssi'") == 0)
            #expect(try connection.integer("SELECT count(*) FROM readings") == 10)
        }
    }

    @Test(
        "values as sent come back exactly: lower-case hex as a BLOB, other text as TEXT",
        arguments: [
            ("4012", "blob"), ("00", "blob"), ("abcdef0123456789", "blob"), ("AB12", "text"), ("abc", "text"),
            ("", "text"), ("112.5 F", "text"), ("4g", "text"), ("é1", "text"),
        ])
    func rawValues(raw: String, storedAs type: String) async throws {
        try await StoreFixture.with { fixture in
            let store = try fixture.open()
            let sent: [Event] = [
                .reading(
                    Reading(
                        seq: 1, time: .now(), address: "DC:A6:32:00:00:01", name: "Thermometer",
                        measurement: Measurement(profile: "htp", quantities: Quantities([.temperature: 21]), raw: raw))),
                .readingError(
                    ReadingFailure(
                        seq: 2, time: .now(), address: "DC:A6:32:00:00:01", name: nil, error: "bad", rawHex: raw)),
            ]
            sent.forEach(store.append)
            await store.flush()
            #expect(await allEvents(store) == sent)
            await store.close()
            let connection = try SQLiteConnection(path: fixture.databasePath)
            #expect(try connection.texts("SELECT typeof(raw) FROM readings") == [type, type])
        }
    }

    @Test("a row keeps the name and profile its device had (alternating formats share two labels) and its source")
    func labelsAsTheyWere() async throws {
        try await StoreFixture.with { fixture in
            let store = try fixture.open()
            func reading(_ seq: UInt64, name: String?, profile: ProfileID, source: ReadingSource = .live) -> Event {
                let measurement = Measurement(profile: profile, quantities: Quantities([.temperature: 20]), raw: "00")
                return .reading(
                    Reading(
                        seq: seq, time: .now(), address: "A4:C1:38:00:00:01", name: name, measurement: measurement,
                        source: source))
            }
            var sent: [Event] = (1...50).map {
                reading(UInt64($0), name: "ATC_000001", profile: $0 % 2 == 0 ? "pvvx" : "bthome")
            }
            sent += (51...60).map { reading(UInt64($0), name: "Kitchen", profile: "pvvx") }
            sent.append(reading(61, name: nil, profile: "pvvx"))
            sent.append(reading(62, name: "Kitchen", profile: "pvvx", source: .memory))
            sent.forEach(store.append)
            await store.close()
            let reopened = try fixture.open()
            #expect(await allEvents(reopened) == sent)
            #expect(await allEvents(reopened, address: "A4:C1:38:00:00:01") == sent)
            await reopened.close()
            let connection = try SQLiteConnection(path: fixture.databasePath)
            #expect(try connection.integer("SELECT count(*) FROM labels") == 4)
            #expect(try connection.texts("SELECT DISTINCT ifnull(source, 'NULL') FROM readings") == ["NULL", "memory"])
        }
    }
}

@Suite("History store: gaps")
struct StoreGapTests {
    @Test("the time blectld was not running is a gap, from its last sign of life to the next start")
    func gatewayStopped() async throws {
        try await StoreFixture.with { fixture in
            let lastReading = Timestamp.now().adding(milliseconds: -1_800_000)
            let first = try fixture.open()
            first.append(reading(1, time: lastReading))
            await first.close()
            // As if the stop had been half an hour ago: the clean close's time goes back too.
            let connection = try SQLiteConnection(path: fixture.databasePath)
            try connection.execute(
                "UPDATE meta SET value = \(lastReading.millisecondsSince1970 + 1000) WHERE key = 'closed_at'")
            let before = Timestamp.now()
            let store = try fixture.open()
            let gaps = await store.gaps(address: "DC:A6:32:00:00:01", from: lastReading, until: nil)
            #expect(gaps.count == 1)
            #expect(gaps.first?.reason == .gatewayStopped && gaps.first?.address == nil)
            #expect(gaps.first?.from == lastReading.adding(milliseconds: 1000))
            #expect(gaps.first.map { $0.until >= before } == true)
            #expect(fixture.logged(.notice, "blectld was not running"))
            // A device's gap is kept across a restart (shorter than a minute: no new gap), and a
            // time range's history carries both.
            store.recordGap(
                HistoryGap(
                    address: "DC:A6:32:00:00:02", from: lastReading, until: lastReading.adding(milliseconds: 700_000),
                    reason: .notHeard))
            await store.close()
            let reopened = try fixture.open()
            let page = await reopened.history(
                HistoryQuery(from: lastReading.adding(milliseconds: -1), until: nil), limit: 10)
            #expect(page.gaps.map(\.reason) == [.notHeard, .gatewayStopped])
            #expect(await reopened.gaps(address: "DC:A6:32:00:00:01", from: lastReading, until: nil).count == 1)
            await reopened.close()
        }
    }
}
