import BlectlProtocol
import Foundation
import SensorModel
import TestSupport
import UnixSupport

@testable import HistoryStore

/// A temporary state directory, removed after the test, and helpers to fill a store.
struct StoreFixture {
    let directory: String
    let recorder = LogRecorder()

    var databasePath: String { directory + "/history.sqlite3" }
    var log: Log { Log(level: .debug, sink: recorder.sink) }

    /// Runs `body` with a fresh directory under /tmp, removed afterwards.
    static func with(_ body: (StoreFixture) async throws -> Void) async throws {
        let directory = "/tmp/blectl-history-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await body(StoreFixture(directory: directory))
    }

    /// Opens a store in the directory; a long commit interval unless given, so tests flush
    /// when they mean to.
    func open(
        _ configuration: HistoryStore.Configuration = .init(commitInterval: .seconds(3600)),
        migrations: [Migration] = Schema.migrations, path: String? = nil
    ) throws -> HistoryStore {
        try HistoryStore.open(path: path ?? directory, configuration: configuration, log: log, migrations: migrations)
    }

    /// Opens a store once the one dropped before has let go of the lock (its thread does
    /// when its last work has run; and a child another test spawns holds a copy of the
    /// lock's descriptor until it execs), on a thread of its own (an upgrade blocks it).
    func openOnceReleased(_ configuration: HistoryStore.Configuration = .init(commitInterval: .seconds(3600)))
        async throws -> HistoryStore
    {
        let deadline = ContinuousClock.now + Duration.seconds(10).scaled
        while true {
            do {
                return try await onOwnThread { try open(configuration) }
            } catch let error as HistoryStoreError {
                guard case .inUse = error, ContinuousClock.now < deadline else { throw error }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    /// The names in the directory.
    func files() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
    }

    /// Whether something was logged at `level` containing `text`.
    func logged(_ level: LogLevel, _ text: String) -> Bool {
        recorder.records.contains { $0.level == level && $0.message.contains(text) }
    }
}

/// A Pi thermometer's reading.
func reading(_ seq: UInt64, address: BluetoothAddress = "DC:A6:32:00:00:01", time: Timestamp = .now()) -> Event {
    .reading(
        Reading(
            seq: seq, time: time, address: address, name: "Thermometer",
            measurement: Measurement(
                profile: "pi-cputemp", quantities: Quantities([.temperature: 47.25]), unit: .fahrenheit,
                raw: "117.1 F")))
}

/// A reading error.
func readingError(_ seq: UInt64, address: BluetoothAddress = "DC:A6:32:00:00:01", time: Timestamp = .now()) -> Event {
    .readingError(
        ReadingFailure(seq: seq, time: time, address: address, name: nil, error: "not a number", rawHex: "6e616e2046"))
}

/// `count` readings numbered from `first`, spread over two addresses.
func readings(from first: UInt64, count: Int, time: Timestamp = .now()) -> [Event] {
    (0..<UInt64(count)).map { offset in
        reading(first + offset, address: offset % 2 == 0 ? "DC:A6:32:00:00:01" : "DC:A6:32:00:00:02", time: time)
    }
}

/// Every event in the store, through pages of `pageSize`.
func allEvents(_ store: HistoryStore, address: BluetoothAddress? = nil, pageSize: Int = 1000) async -> [Event] {
    var events: [Event] = []
    var since: UInt64 = 0
    while true {
        let page = await store.page(address: address, since: since, limit: pageSize)
        events += page.events
        guard page.more, let last = page.events.last?.seq else { return events }
        since = last
    }
}

/// Rows in the database file, counted through a connection of the test's own.
func rowCount(_ path: String) throws -> Int {
    Int(try SQLiteConnection(path: path).integer("SELECT count(*) FROM readings") ?? -1)
}

/// The `history-store-tool` built next to the tests.
func toolPath() -> String {
    var url = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().resolvingSymlinksInPath()
    while !FileManager.default.isExecutableFile(atPath: url.appendingPathComponent("history-store-tool").path),
        url.path != "/"
    {
        url.deleteLastPathComponent()
    }
    return url.appendingPathComponent("history-store-tool").path
}
