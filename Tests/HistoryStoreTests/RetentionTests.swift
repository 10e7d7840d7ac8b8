import BlectlProtocol
import Foundation
import TestSupport
import Testing

@testable import HistoryStore

@Suite("History store: retention, size bound, long ranges")
struct RetentionTests {
    @Test("readings older than the retention are pruned in small steps; the rest stays")
    func retentionBacklog() async throws {
        try await StoreFixture.with { fixture in
            let old = Timestamp.now().adding(milliseconds: -40 * 86_400_000)
            let first = try fixture.open(.init(commitInterval: .seconds(3600), retention: .seconds(3600 * 24 * 365)))
            readings(from: 1, count: 5_500, time: old).forEach(first.append)
            readings(from: 5_501, count: 10).forEach(first.append)
            await first.close()
            // Opened again with 30 days: the 5,500 old ones go, 1,000 per step.
            let store = try fixture.open()
            #expect(await eventually { await store.status().rows == 10 })
            #expect(await store.counters().pruneSteps >= 6)
            #expect(await allEvents(store).compactMap(\.seq) == Array(5_501...5_510))
            #expect(await !store.page(address: nil, since: 0, limit: 1).complete)
            #expect(await store.page(address: nil, since: 5_500, limit: 1).complete)
            #expect(try rowCount(fixture.databasePath) == 10)
            await store.close()
        }
    }

    @Test("readings expire while the store runs")
    func expiryWhileRunning() async throws {
        try await StoreFixture.with { fixture in
            let store = try fixture.open(.init(commitInterval: .milliseconds(50), retention: .seconds(2)))
            readings(from: 1, count: 20).forEach(store.append)
            readings(from: 21, count: 5, time: Timestamp.now().adding(milliseconds: 3_600_000)).forEach(store.append)
            await store.flush()
            // The first 20 expire two seconds from now and go by the store's own timer; the
            // five stamped an hour ahead stay, however slow the run.
            #expect(await eventually { await store.status().rows == 5 })
            #expect(await allEvents(store).compactMap(\.seq) == Array(21...25))
            await store.close()
        }
    }

    @Test("the size bound removes the oldest readings until the pages in use fit")
    func maxBytes() async throws {
        try await StoreFixture.with { fixture in
            let bound: Int64 = 512 * 1024
            let store = try fixture.open(
                .init(commitInterval: .seconds(3600), maxBytes: bound, pruneSpacing: .milliseconds(1)))
            for batch in 0..<10 {
                readings(from: UInt64(batch * 2_000 + 1), count: 2_000).forEach(store.append)
                await store.flush()
            }
            let path = fixture.databasePath
            #expect(
                await eventually {
                    (try? SQLiteConnection(path: path)).flatMap { try? usedBytes($0) }.map { $0 <= bound } == true
                })
            let seqs = await allEvents(store, pageSize: 5_000).compactMap(\.seq)
            #expect(seqs.last == 20_000)
            #expect(seqs.first.map { $0 > 1 } == true, "the oldest went first")
            #expect(seqs == Array(seqs.first!...20_000), "and only the oldest")
            #expect(await !store.page(address: nil, since: 0, limit: 1).complete)
            await store.close()
        }
    }

    @Test("a 100,000-reading range comes back in pages, in order, without a gap")
    func longRange() async throws {
        try await StoreFixture.with { fixture in
            let store = try fixture.open()
            for batch in 0..<10 {
                readings(from: UInt64(batch * 10_000 + 1), count: 10_000).forEach(store.append)
                await store.flush()
            }
            let start = ContinuousClock.now
            var since: UInt64 = 0
            var pages = 0
            var count = 0
            while true {
                let page = await store.page(address: nil, since: since, limit: 1_000)
                for event in page.events {
                    #expect(event.seq == since + 1)
                    since = event.seq ?? since
                }
                count += page.events.count
                pages += 1
                if !page.more { break }
            }
            let elapsed = ContinuousClock.now - start
            #expect(count == 100_000 && pages == 100)
            print("history store: 100,000 readings in \(pages) pages of 1,000 in \(elapsed)")
            // One device's half, from its own index.
            #expect(await allEvents(store, address: "DC:A6:32:00:00:02").count == 50_000)
            await store.close()
        }
    }
}

/// The bytes of the pages in use in a database file.
private func usedBytes(_ connection: SQLiteConnection) throws -> Int64 {
    let pages = try connection.integer("PRAGMA page_count") ?? 0
    let free = try connection.integer("PRAGMA freelist_count") ?? 0
    return (pages - free) * (try connection.integer("PRAGMA page_size") ?? 0)
}
