import BlectlProtocol
import SensorModel
import TestSupport
import Testing

@testable import HistoryStore

@Suite("History store: storing and reading back")
struct StoreBasicsTests {
    @Test("every field of readings and reading errors comes back as it went in")
    func roundTrip() async throws {
        try await StoreFixture.with { fixture in
            let store = try fixture.open()
            var full = Measurement(
                profile: "ess", quantities: Quantities([.temperature: 21.5, .humidity: 40.25, .battery: 87]),
                unit: .celsius, raw: "0a1b2c")
            full.quantities[.pressure] = 1013.2
            full.quantities[.voltage] = 2.95
            let time = Timestamp.now()
            let events: [Event] = [
                reading(1, time: time),
                .reading(Reading(seq: 2, time: time, address: "F0:00:00:00:00:02", name: nil, measurement: full)),
                readingError(3, time: time),
            ]
            events.forEach(store.append)
            await store.flush()
            #expect(try rowCount(fixture.databasePath) == 3)
            let page = await store.page(address: nil, since: 0, limit: 10)
            #expect(page.events == events)
            #expect(!page.more && page.complete)
            await store.close()
            // And from a new store on the same file.
            let reopened = try fixture.open()
            #expect(reopened.lastSeq == 3)
            #expect(await reopened.page(address: nil, since: 0, limit: 10).events == events)
            await reopened.close()
        }
    }

    @Test("after a burst is committed, the writer gives the burst's memory back")
    func burstMemory() async throws {
        try await StoreFixture.with { fixture in
            let store = try fixture.open()
            readings(from: 1, count: 50_000).forEach(store.append)
            await store.flush()
            #expect(try rowCount(fixture.databasePath) == 50_000)
            // 50,000 readings' room would be 7.6 MB kept for good.
            let kept = await store.bufferCapacity()
            #expect(kept < 10_000, "room for \(kept) readings kept")
            await store.close()
        }
    }

    @Test("pages by seq, by address, with limits and readings not yet committed")
    func pages() async throws {
        try await StoreFixture.with { fixture in
            let store = try fixture.open()
            let committed = readings(from: 1, count: 10)
            committed.forEach(store.append)
            await store.flush()
            let waiting = readings(from: 11, count: 10)
            waiting.forEach(store.append)  // the commit interval is an hour: these stay in memory
            #expect(try rowCount(fixture.databasePath) == 10)

            let first = await store.page(address: nil, since: 0, limit: 15)
            #expect(first.events.map(\.seq) == (1...15).map { $0 })
            #expect(first.more)
            let rest = await store.page(address: nil, since: 15, limit: 15)
            #expect(rest.events.map(\.seq) == (16...20).map { $0 })
            #expect(!rest.more)
            let second = await store.page(address: "DC:A6:32:00:00:02", since: 4, limit: 100)
            #expect(second.events.map(\.seq) == [6, 8, 10, 12, 14, 16, 18, 20])
            #expect(await store.page(address: "00:00:00:00:00:00", since: 0, limit: 5).events.isEmpty)
            #expect(await store.status().pending == 10)
            await store.close()
        }
    }

    @Test("pages by time: a range, in time order, continued after the last event")
    func timePages() async throws {
        try await StoreFixture.with { fixture in
            let store = try fixture.open()
            let base = Timestamp.now().millisecondsSince1970 - 3_600_000
            // Seq 5 carries an earlier time than seq 4 (a clock set back): time order wins.
            let times: [Int64] = [0, 1000, 2000, 3000, 2500, 4000, 5000, 5000]
            let events = times.enumerated().map { index, offset in
                reading(UInt64(index + 1), time: Timestamp(millisecondsSince1970: base + offset))
            }
            events.prefix(5).forEach(store.append)
            await store.flush()
            events.dropFirst(5).forEach(store.append)  // in memory

            let from = Timestamp(millisecondsSince1970: base + 1000)
            let until = Timestamp(millisecondsSince1970: base + 5000)
            let page = await store.page(address: nil, from: from, until: until, limit: 3)
            #expect(page.events.map(\.seq) == [2, 3, 5])
            #expect(page.more)
            let last = try #require(page.events.last)
            let next = await store.page(
                address: nil, from: last.storedTime!, after: last.seq!, until: until, limit: 3)
            #expect(next.events.map(\.seq) == [4, 6])
            #expect(!next.more)
            let open = await store.page(
                address: nil, from: Timestamp(millisecondsSince1970: base + 5000), until: nil, limit: 9)
            #expect(open.events.map(\.seq) == [7, 8])
            await store.close()
        }
    }

    @Test("the largest seq as a bound selects nothing, committed or not, by seq or within a time")
    func largestSeqBound() async throws {
        try await StoreFixture.with { fixture in
            let store = try fixture.open()
            let time = Timestamp.now()
            readings(from: 1, count: 3, time: time).forEach(store.append)
            await store.flush()
            store.append(reading(4, time: time))  // in memory
            for address: BluetoothAddress? in [nil, "DC:A6:32:00:00:01"] {
                #expect(await store.page(address: address, since: .max, limit: 10).events.isEmpty)
                #expect(await store.page(address: address, since: UInt64(Int64.max), limit: 10).events.isEmpty)
                let range = await store.page(address: address, from: time, after: .max, until: nil, limit: 10)
                #expect(range.events.isEmpty)
            }
            await store.close()
        }
    }

    @Test("status: the file, rows, oldest time, bytes, and its JSON form")
    func status() async throws {
        try await StoreFixture.with { fixture in
            let store = try fixture.open()
            let time = Timestamp.now().adding(milliseconds: -5_000)
            store.append(reading(1, time: time))
            store.append(reading(2))
            await store.flush()
            store.append(reading(3))
            let status = await store.status()
            #expect(status.path == fixture.databasePath)
            #expect(status.state == .ok && status.reason == nil)
            #expect(status.rows == 2 && status.pending == 1 && status.dropped == 0 && status.committedSeq == 2)
            #expect(status.oldest == time)
            #expect(status.bytes > 0)
            let json = try JSONLines.encodeString(status)
            #expect(
                json.contains("\"committed_seq\":2") && json.contains("\"state\":\"ok\"")
                    && json.contains("\"reason\":null"))
            #expect(try JSONLines.decode(HistoryStatus.self, from: Array(json.utf8)) == status)
            await store.close()
        }
    }

    @Test("a commit interval batches readings into one transaction, and commits by itself")
    func commitInterval() async throws {
        try await StoreFixture.with { fixture in
            let store = try fixture.open(.init(commitInterval: .milliseconds(300)))
            readings(from: 1, count: 1000).forEach(store.append)
            let path = fixture.databasePath
            #expect(await eventually { (try? rowCount(path)) == 1000 })
            #expect(await store.counters().commits == 1)
            await store.close()
        }
    }

    @Test("numbers already handed over are not stored twice")
    func duplicatesIgnored() async throws {
        try await StoreFixture.with { fixture in
            let store = try fixture.open()
            readings(from: 1, count: 5).forEach(store.append)
            store.append(reading(3))
            store.append(reading(5))
            store.append(reading(6))
            await store.flush()
            #expect(await allEvents(store).map(\.seq) == [1, 2, 3, 4, 5, 6])
            #expect(fixture.logged(.warning, "#3 arrived after #5"))
            await store.close()
        }
    }

    @Test("sequence numbers continue across a clean restart without a gap, and jump past a crash")
    func sequenceNumbersContinue() async throws {
        try await StoreFixture.with { fixture in
            let first = try fixture.open()
            #expect(first.lastSeq == 0)
            readings(from: 1, count: 42).forEach(first.append)
            await first.close()
            var second: HistoryStore? = try fixture.open()
            #expect(second?.lastSeq == 42)
            readings(from: 43, count: 8).forEach { second?.append($0) }
            await second?.flush()
            // Dropped without close(), as after a crash: the numbers it may have handed out
            // are unknown, so the next store starts at the floor recorded beyond them.
            let floor = DatabaseLock.recordedFloor(at: fixture.databasePath + ".lock")
            #expect(floor > 50)
            second = nil
            let third = try await fixture.openOnceReleased()
            #expect(third.lastSeq == floor)
            await third.close()
        }
    }
}
