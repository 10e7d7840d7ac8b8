import BlectlProtocol
import Foundation
import TestSupport
import Testing

@testable import HistoryStore

@Suite(
    "History store: full disk and read-only state directory",
    .enabled(if: RootRequirement.testRuns, "needs root to mount a tmpfs"))
struct DiskFaultTests {
    @Test("a full disk: readings wait in memory up to the bound, status says why, writing resumes with space")
    func diskFull() async throws {
        try await ScratchFileSystem.with(sizeBytes: 8 << 20) { fs in
            let fixture = StoreFixture(directory: fs.writable)
            let store = try fixture.open(.init(commitInterval: .milliseconds(100), pendingLimit: 3_000))
            readings(from: 1, count: 500).forEach(store.append)
            await store.flush()
            #expect(try rowCount(fixture.databasePath) == 500)
            // The disk fills up: the file system shrinks to what its files use now.
            try fs.resize(to: 4096 * 100)
            var seq: UInt64 = 500
            var status = await store.status()
            while status.state == .ok, seq < 100_000 {
                readings(from: seq + 1, count: 500).forEach(store.append)
                seq += 500
                await store.flush()
                status = await store.status()
            }
            #expect(status.state == .degraded)
            #expect(status.reason?.hasPrefix("disk full") == true || status.reason?.hasPrefix("I/O error") == true)
            #expect(fixture.logged(.warning, "cannot write \(fixture.databasePath)"))
            let committed = status.committedSeq
            // More than the bound arrives: the oldest waiting are dropped and counted.
            readings(from: seq + 1, count: 4_000).forEach(store.append)
            seq += 4_000
            await store.flush()
            status = await store.status()
            #expect(status.pending == 3_000)
            #expect(status.dropped == seq - committed - 3_000)
            // Space returns: the store writes again by itself, on its commit timer.
            try fs.resize(to: 64 << 20)
            #expect(await eventually { await store.status().pending == 0 })
            status = await store.status()
            #expect(status.state == .ok && status.reason == nil)
            #expect(fixture.logged(.notice, "writing \(fixture.databasePath) again"))
            let seqs = await allEvents(store, pageSize: 5_000).compactMap(\.seq)
            #expect(
                seqs == Array(1...committed) + Array((seq - 2_999)...seq),
                "committed \(committed), last \(seq), got \(seqs.count): \(seqs.prefix(3)) … \(zip(seqs, seqs.dropFirst()).filter { $1 != $0 + 1 })"
            )
            #expect(await !store.page(address: nil, since: committed, limit: 1).complete)
            #expect(await store.page(address: nil, since: seq - 3_000, limit: 1).complete)
            await store.close()
        }
    }

    @Test("a read-only state directory: live readings go on, status is degraded, writing starts once writable")
    func readOnlyDirectory() async throws {
        try await ScratchFileSystem.with(sizeBytes: 8 << 20) { fs in
            // A store wrote here before; now the directory is seen read-only.
            let writable = StoreFixture(directory: fs.writable)
            let earlier = try writable.open()
            readings(from: 1, count: 10).forEach(earlier.append)
            await earlier.close()

            let fixture = StoreFixture(directory: fs.readOnly)
            let store = try fixture.open(.init(commitInterval: .milliseconds(100)))
            #expect(store.lastSeq == 10, "numbering continues from the lock file even when read-only")
            var status = await store.status()
            #expect(status.state == .degraded)
            #expect(status.reason?.contains("Read-only file system") == true)
            readings(from: 11, count: 20).forEach(store.append)
            #expect(await store.page(address: nil, since: 10, limit: 100).events.count == 20)
            #expect(await store.status().pending == 20)
            #expect(try rowCount(writable.databasePath) == 10)

            try fs.setReadOnly(false)
            #expect(await eventually { await store.status().pending == 0 })
            status = await store.status()
            #expect(status.state == .ok)
            #expect(await allEvents(store).compactMap(\.seq) == Array(1...30))
            await store.close()
        }
    }
}
