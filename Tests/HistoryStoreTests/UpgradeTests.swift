import BlectlProtocol
import Foundation
import Testing
import TestSupport

@testable import HistoryStore

#if canImport(Glibc)
    import Glibc
#endif

/// Serialized, and every blocking step (an upgrade inside `HistoryStore.open`, a child
/// process run to its end) on a thread of its own: on two cores the cooperative pool has two
/// threads, and seconds-long upgrades blocking them stalled every other suite of the run.
@Suite("History store: upgrading a version-1 database", .serialized)
struct UpgradeTests {
    @Test("a version-1 database is rebuilt at start: every row as it was, numbering after its floor, smaller")
    func rebuild() async throws {
        try await StoreFixture.with { fixture in
            let path = fixture.databasePath
            try await writeLegacy(path, rows: 20_000)
            let before = try await onOwnThread { try legacyEvents(path) }
            let bytesBefore = fileSize(fixture.databasePath)
            #expect(before.count == 20_000)

            let store = try await onOwnThread { try fixture.open() }
            #expect(store.lastSeq == 220_000, "the old file's seq_floor")
            #expect(await allEvents(store, pageSize: 5_000) == before)
            #expect(await store.status().rows == 20_000)
            await store.close()
            #expect(
                fixture.logged(
                    .notice, "upgraded \(fixture.databasePath) from schema version 1 to \(Schema.currentVersion)"))
            #expect(try Schema.version(of: SQLiteConnection(path: fixture.databasePath)) == Schema.currentVersion)
            #expect(!fixture.files().contains { $0.contains("upgrade") })
            #expect(fileSize(fixture.databasePath) < bytesBefore * 7 / 10, "\(bytesBefore) before")
        }
    }

    @Test("kill -9 at any point of an upgrade leaves the old database or the new one; the next start finishes it")
    func killedUpgrade() async throws {
        try await StoreFixture.with { fixture in
            let legacy = fixture.directory + "/legacy.sqlite3"
            try await writeLegacy(legacy, rows: 150_000)
            let expected = try await onOwnThread { try legacyEvents(legacy).count }
            // How long a whole upgrade takes here, tool start included.
            let path = fixture.directory + "/db/history.sqlite3"
            try await onOwnThread { try copyFresh(legacy, to: path) }
            let started = ContinuousClock.now
            let whole = try ChildProcess.start(
                toolPath(), ["upgrade", path], logFile: URL(fileURLWithPath: fixture.directory + "/whole.log"))
            #expect(await whole.waitForExit(timeout: .seconds(120)) == 0)
            let duration = started.duration(to: .now)
            var found: [Int32] = []
            for fraction in [0.05, 0.15, 0.25, 0.35, 0.45, 0.6, 0.8, 1.0] {
                try await onOwnThread { try copyFresh(legacy, to: path) }
                let child = try ChildProcess.start(
                    toolPath(), ["upgrade", path],
                    logFile: URL(fileURLWithPath: fixture.directory + "/upgrade-\(fraction).log"))
                try await Task.sleep(for: duration * fraction)
                child.signal(SIGKILL)
                _ = await child.waitForExit(timeout: .seconds(10))
                await child.stop()
                // What the name holds now is one whole database, old or new.
                let connection = try SQLiteConnection(path: path)
                let version = try Schema.version(of: connection)
                found.append(version)
                #expect(version == 1 || version == Schema.currentVersion)
                #expect(try connection.texts("PRAGMA quick_check") == ["ok"])
                #expect(try connection.integer("SELECT count(*) FROM readings") == Int64(expected))
                // The next start finishes the job.
                let log = fixture.log
                let store = try await onOwnThread {
                    try HistoryStore.open(path: path, configuration: .init(commitInterval: .seconds(3600)), log: log)
                }
                #expect(await store.status().rows == expected)
                #expect(store.lastSeq == UInt64(expected) + 200_000)
                await store.close()
                #expect(try Schema.version(of: SQLiteConnection(path: path)) == Schema.currentVersion)
            }
            print("kill -9 during an upgrade of \(expected) rows (\(duration)): versions found \(found)")
        }
    }

    @Test(
        "a full disk during the upgrade leaves the old database intact; the store runs degraded, then upgrades",
        .enabled(if: RootRequirement.testRuns, "needs root to mount a tmpfs"))
    func fullDisk() async throws {
        try await ScratchFileSystem.with(sizeBytes: 64 << 20) { fs in
            let fixture = StoreFixture(directory: fs.writable)
            let path = fixture.databasePath
            try await writeLegacy(path, rows: 150_000)
            let rowsBefore = try await onOwnThread { try rowCount(path) }
            // The disk fills while the new file is written: shrink the file system to what it
            // holds as soon as the upgrade file appears.
            // A thread, not a task: opening the store blocks this task's thread, and the
            // cooperative pool may have no other.
            let shrunk = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                let deadline = ContinuousClock.now + .seconds(60)
                while access(fixture.databasePath + ".upgrade", F_OK) != 0, ContinuousClock.now < deadline {
                    usleep(1_000)
                }
                usleep(50_000)
                for _ in 0..<20 where (try? fs.resize(to: usedBytes(fs.writable) + 65_536)) == nil {}
                shrunk.signal()
            }
            let store = try await onOwnThread {
                let store = try fixture.open(.init(commitInterval: .milliseconds(100)))
                shrunk.wait()
                return store
            }
            var status = await store.status()
            #expect(status.state == .degraded)
            #expect(status.reason?.hasPrefix("disk full") == true, "\(status.reason ?? "")")
            #expect(fixture.logged(.warning, "upgrading from schema version 1"))
            #expect(!FileManager.default.fileExists(atPath: fixture.databasePath + ".upgrade"))
            // Live readings go on, waiting in memory.
            readings(from: store.lastSeq + 1, count: 10).forEach(store.append)
            status = await store.status()
            #expect(status.pending == 10)
            await store.close()
            // The old database is whole. (Looked at with room again: a reader of a WAL database
            // may need to write its index, and on the full disk that failed once.)
            try fs.resize(to: 128 << 20)
            let connection = try SQLiteConnection(path: fixture.databasePath)
            #expect(try Schema.version(of: connection) == 1)
            #expect(try rowCount(fixture.databasePath) == rowsBefore)
            // With room, the next start upgrades it.
            let reopened = try await fixture.openOnceReleased()
            #expect(await reopened.status().rows == rowsBefore)
            await reopened.close()
        }
    }

    @Test(
        "too little room for the new file beside the old: the upgrade is not started, the store runs degraded",
        .enabled(if: RootRequirement.testRuns, "needs root to mount a tmpfs"))
    func noRoom() async throws {
        try await ScratchFileSystem.with(sizeBytes: 24 << 20) { fs in
            let fixture = StoreFixture(directory: fs.writable)
            let path = fixture.databasePath
            try await writeLegacy(path, rows: 100_000)
            let store = try await onOwnThread { try fixture.open() }
            let status = await store.status()
            #expect(status.state == .degraded)
            #expect(status.reason?.hasPrefix("disk full") == true)
            #expect(fixture.logged(.warning, "the upgrade needs about"))
            #expect(!FileManager.default.fileExists(atPath: fixture.databasePath + ".upgrade"))
            await store.close()
            #expect(try Schema.version(of: SQLiteConnection(path: fixture.databasePath)) == 1)
        }
    }
}

/// Writes a version-1 database as an older blectl did (the tool's `legacy` command).
func writeLegacy(_ path: String, rows: Int) async throws {
    let result = try await run(toolPath(), ["legacy", path, String(rows)], timeout: .seconds(120))
    guard result.status == 0, result.output.hasPrefix("rows") else {
        throw TestSupportError("history-store-tool legacy: \(result.status) \(result.output) \(result.errors)")
    }
}

/// Every row of a version-1 file, read as the rebuild reads it.
func legacyEvents(_ path: String) throws -> [Event] {
    let connection = try SQLiteConnection(path: path)
    let select = try connection.prepare("SELECT \(ReadingsTable.legacyColumns) FROM readings ORDER BY seq")
    var events: [Event] = []
    while try select.step() { events.append(select.rowEvent()) }
    return events
}

/// A copy of `source` at `path`, nothing else in its directory.
func copyFresh(_ source: String, to path: String) throws {
    let directory = (path as NSString).deletingLastPathComponent
    try? FileManager.default.removeItem(atPath: directory)
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    try FileManager.default.copyItem(atPath: source, toPath: path)
}

func fileSize(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path)[.size]) as? Int) ?? 0
}

/// The bytes in use on the file system holding `directory`.
func usedBytes(_ directory: String) -> Int {
    var info = statvfs()
    guard statvfs(directory, &info) == 0 else { return 0 }
    return Int(info.f_blocks - info.f_bfree) * Int(info.f_frsize)
}
