import BlectlProtocol
import Foundation
import Testing
import TestSupport

@testable import HistoryStore

@Suite("History store: kill -9 and a second process")
struct CrashAndLockTests {
    @Test("kill -9 in the middle of a burst: nothing committed is lost, numbers continue, no duplicates")
    func killDuringBurst() async throws {
        try await StoreFixture.with { fixture in
            var committed: UInt64 = 0
            for round in 1...2 {
                let child = try ChildProcess.start(
                    toolPath(), ["burst", fixture.directory],
                    logFile: URL(fileURLWithPath: fixture.directory + "/burst-\(round).log"), captureStdout: true)
                let target = committed + 5_000
                let line = try await child.firstLine(timeout: .seconds(30)) { line in
                    line.hasPrefix("committed ") && UInt64(line.dropFirst(10)).map { $0 >= target } == true
                }
                committed = try #require(line.flatMap { UInt64($0.dropFirst(10)) })
                child.signal(SIGKILL)
                #expect(await child.waitForExit(timeout: .seconds(10)) != nil)
                await child.stop()

                let store = try fixture.open()
                let events = await allEvents(store, pageSize: 4096)
                let seqs = events.compactMap(\.seq)
                #expect(seqs.count == Set(seqs).count, "no duplicates")
                #expect(seqs == seqs.sorted())
                #expect(seqs.last.map { $0 >= committed } == true, "everything flushed before the kill is there")
                // Every number up to the last commit, with a gap only where a crash jumped ahead.
                let gaps = zip(seqs, seqs.dropFirst()).filter { $1 != $0 + 1 }.count
                #expect(gaps == round - 1)
                #expect(store.lastSeq > seqs.last ?? 0, "numbering continues above what was handed out")
                committed = store.lastSeq
                await store.close()
            }
        }
    }

    @Test("a second process opening the database gets a clear error, and the database is untouched")
    func secondProcess() async throws {
        try await StoreFixture.with { fixture in
            let store = try fixture.open()
            readings(from: 1, count: 10).forEach(store.append)
            await store.flush()
            let child = try ChildProcess.start(
                toolPath(), ["hold", fixture.directory], logFile: URL(fileURLWithPath: fixture.directory + "/hold.log"),
                captureStdout: true)
            let line = try await child.firstStdoutLine(timeout: .seconds(20))
            #expect(
                line?.hasPrefix("error the history database \(fixture.databasePath) is in use by process \(getpid())")
                    == true)
            #expect(await child.waitForExit(timeout: .seconds(10)) == 78)
            await child.stop()
            #expect(await allEvents(store).count == 10)
            await store.close()
        }
    }

    @Test("while another process holds the database, this one cannot open it: inUse names the holder")
    func heldByAnotherProcess() async throws {
        try await StoreFixture.with { fixture in
            let child = try ChildProcess.start(
                toolPath(), ["hold", fixture.directory], logFile: URL(fileURLWithPath: fixture.directory + "/hold.log"),
                captureStdout: true)
            let ready = try await child.firstStdoutLine(timeout: .seconds(20))
            #expect(ready == "ready 0")
            #expect(throws: HistoryStoreError.inUse(path: fixture.databasePath, holder: child.pid)) {
                try fixture.open()
            }
            #expect(
                HistoryStoreError.inUse(path: fixture.databasePath, holder: child.pid).description.contains(
                    "in use by process \(child.pid)"))
            await child.stop(signal: SIGKILL)
            // The lock goes with the process: no stale lock after a crash.
            let store = try await fixture.openOnceReleased()
            await store.close()
        }
    }

    @Test("a second store in the same process is refused too")
    func secondStoreInProcess() async throws {
        try await StoreFixture.with { fixture in
            let store = try fixture.open()
            #expect(throws: HistoryStoreError.inUse(path: fixture.databasePath, holder: getpid())) {
                try fixture.open()
            }
            await store.close()
        }
    }
}
