import Foundation
import TestSupport
import Testing

/// The durable history end to end: `blectld --mock` on a state directory the test owns,
/// killed, restarted, starved of disk, given a damaged file; `blectl history` and a raw
/// client that fell far behind. In ``CLITests``, whose daemons run one at a time.
extension CLITests {
    @Test(
        "kill -9 in a fast stream, restart on the same state directory: nothing committed lost, seqs go on, none twice")
    func killAndRestart() async throws {
        try await DaemonGroup.with { group in
            // Not there yet: blectld makes it (and keeps history.sqlite3 inside it).
            let state = group.directory.appendingPathComponent("state/blectl").path
            let start = { (name: String) in
                try await group.launch(
                    name, mockOptions: "--fast --notify-interval 5ms", arguments: ["--state-dir", state],
                    configuration: "history_commit_interval = 200ms\n")
            }
            let first = try await start("first")
            try await first.waitForConnected(2)
            try await first.waitForHistory { ($0["rows"] as? Int ?? 0) >= 1000 }
            // What was committed, then everything the history had (committed or in memory).
            let committed = try #require(try await first.historyStatus()["committed_seq"] as? UInt64)
            let before = try await first.history(["--since", "1h"])
            first.daemon.signal(SIGKILL)
            #expect(await first.daemon.waitForExit(timeout: .seconds(10)) != nil)
            #expect(FileManager.default.fileExists(atPath: state + "/history.sqlite3"))

            let second = try await start("second")
            let startStatus = try await second.status()
            let restarted = try #require(startStatus["started"] as? String)
            // Numbering resumes above the floor the first daemon recorded: wait for new readings.
            let resumedAt = try #require(startStatus["last_seq"] as? UInt64)
            try await second.waitForConnected(2)
            let lastBefore = try #require(before.map(\.seq).max())
            #expect(resumedAt > lastBefore)
            try await second.waitForHistory { _ in
                try await second.status()["last_seq"] as? UInt64 ?? 0 > resumedAt + 200
            }
            let after = try await second.history(["--since", "1h"])

            let seqs = after.map(\.seq)
            #expect(Set(seqs).count == seqs.count, "no seq twice")
            let stored = Dictionary(uniqueKeysWithValues: after.map { ($0.seq, $0) })
            let lost = before.filter { stored[$0.seq] == nil }
            #expect(lost.allSatisfy { $0.seq > committed }, "committed (≤ \(committed)) and lost: \(lost.prefix(5))")
            #expect(before.filter { $0.seq <= committed }.allSatisfy { stored[$0.seq] == $0 }, "kept as they were")
            let old = after.filter { $0.time < restarted }
            let new = after.filter { $0.time >= restarted }
            #expect(!new.isEmpty)
            #expect(
                new.map(\.seq).min()! > max(lastBefore, old.map(\.seq).max() ?? 0), "new numbers follow every old one")
            print("kill -9: \(before.count) readings before, committed_seq \(committed), \(lost.count) lost")
        }
    }

    @Test("watch across a clean restart on the same state directory: it goes on after its last seq, once each")
    func watchAcrossRestart() async throws {
        try await DaemonGroup.with { group in
            let state = group.directory.appendingPathComponent("state").path
            let options = "--fast --notify-interval 50ms"
            let first = try await group.launch(mockOptions: options, arguments: ["--state-dir", state])
            let watch = try ChildProcessLines.start(
                DaemonFixture.binary("blectl"), ["--socket", first.socket, "watch", "--json", "--events", "reading"])
            defer { watch.stop() }
            var expected = try #require(try await watch.first { $0["seq"] as? Int ?? 0 >= 5 }["seq"] as? Int) + 1
            first.daemon.signal(SIGTERM)
            #expect(await first.daemon.waitForExit(timeout: .seconds(10)) == 0)
            // The same socket, configuration and state directory.
            let second = try await group.launch(mockOptions: options, arguments: ["--state-dir", state])
            try await second.waitForConnected(2)
            let target = try #require(try await second.status()["last_seq"] as? Int) + 20
            // Every reading once, in order: the first daemon's last ones, then the second's.
            while expected <= target {
                let text = try await watch.firstText { _ in true }
                let line = try #require(ChildProcessLines.parse(text), "stdout has only events: \(text)")
                #expect(line["seq"] as? Int == expected, "\(line)")
                expected = (line["seq"] as? Int ?? expected) + 1
            }
            #expect(watch.errors().contains("blectld restarted; going on after #"), "\(watch.errors())")
        }
    }

    @Test("a subscriber that stops reading is dropped; 100,000 readings later it resumes from history without a gap")
    func slowClientResumes() async throws {
        try await DaemonGroup.with { group in
            let fixture = try await group.launch(mockOptions: "--fast --thermometers 4 --notify-interval 1ms")
            try await fixture.waitForConnected(4)
            let stuck = try SocketClient(path: fixture.socket)
            #expect(stuck.readObject()?["type"] as? String == "hello")
            stuck.send(#"{"v":1,"id":1,"cmd":"subscribe","events":["reading","reading_error"]}"# + "\n")
            var seen = try await offload { try stuck.eventSeqs(until: { $0.count >= 100 }) }
            // It stops reading; blectld drops it once its queue passes 1 MiB (client_queue_bytes).
            try await fixture.waitForLog("is not reading")
            // What the kernel still held for it, then the end of the connection.
            seen += try await offload { try stuck.eventSeqs(until: { _ in false }) }
            let behind = try #require(seen.last) + 100_000
            try await fixture.waitForHistory(within: .seconds(300)) {
                _ in try await fixture.status()["last_seq"] as? UInt64 ?? 0 >= behind
            }
            // The stream pauses (adapter off), so the client pages through 100,000 and not
            // as many more as arrive meanwhile; it goes on once the client has subscribed.
            try await fixture.inject("power-off", [("adapter", .string("hci0"))])
            #expect(seen == Array(seen[0]...seen.last!), "what it did receive has no gap")

            // A page can take seconds on a machine busy with other tests (a debug build).
            let resumed = try SocketClient(path: fixture.socket, receiveTimeout: 30)
            let resumedAt = ContinuousClock.now
            let lastSeen = try #require(seen.last)
            let caughtUp = try await offload {
                try resumed.resume(after: lastSeen) {
                    Task { try await fixture.inject("power-on", [("adapter", .string("hci0"))]) }
                }
            }
            // History, then pushed events: no gap, none twice.
            let steps = zip([lastSeen] + caughtUp.seqs, caughtUp.seqs).filter { $1 != $0 + 1 }
            #expect(steps.isEmpty, "not one after the other: \(steps.prefix(10))")
            #expect(caughtUp.fromHistory >= 100_000)
            print(
                "slow client: dropped at seq \(lastSeen), resumed with \(caughtUp.fromHistory) readings from history "
                    + "in \(caughtUp.pages) pages, \(ContinuousClock.now - resumedAt)")
        }
    }

    @Test("blectl history: CSV and JSON shapes, reading errors, --since, --until, --limit, a name or an address, text")
    func historyShapes() async throws {
        // A small client queue: a page is cut to about 190 readings, so the ranges span pages.
        try await DaemonFixture.with(
            mockOptions: "--fast --notify-interval 5ms", configuration: "client_queue_bytes = 65536\n"
        ) { fixture in
            try await fixture.waitForConnected(2)
            // A value that is not a temperature: a reading error, whose text has quotes.
            try await fixture.inject(
                "malformed", [("kind", .string("nan")), ("address", .string("DC:A6:32:00:00:02"))])
            try await fixture.waitForHistory { ($0["rows"] as? Int ?? 0) >= 1000 }
            let all = try await fixture.history(["--since", "1h"])
            #expect(all.count >= 1000)
            #expect(all == all.sorted { ($0.time, $0.seq) < ($1.time, $1.seq) })
            let from = all[0].time
            let until = all[700].time
            let range = ["--since", from, "--until", until]
            let expected = all.filter { $0.time < until }
            let errors = expected.filter { $0.error != nil }
            #expect(errors.count == 1 && errors[0].error!.contains("\""), "\(errors)")

            let json = try await fixture.blectl(["history", "--json"] + range)
            #expect(json.status == 0)
            let objects = try #require(
                try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
            #expect(objects.count == expected.count)
            for object in objects {
                let keys: Set<String> =
                    object["type"] as? String == "reading_error"
                    ? ["type", "seq", "time", "address", "name", "error", "raw_hex"]
                    : ["type", "seq", "time", "address", "name", "celsius", "raw", "unit", "profile"]
                #expect(Set(object.keys) == keys && ["reading", "reading_error"].contains(object["type"] as? String))
            }
            #expect(try await fixture.history(range) == expected)

            let csv = try await fixture.blectl(["history", "--csv"] + range)
            #expect(csv.status == 0)
            let lines = csv.output.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            let header =
                "seq,time,address,name,profile,celsius,humidity,battery,pressure,voltage,co2,dew_point,unit,raw,"
            #expect(lines.first.map(String.init) == header + "error,source")
            let columns = lines.first.map { $0.split(separator: ",").map(String.init) } ?? []
            let rows = lines.dropFirst().map {
                let cells = $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                return Dictionary(zip(columns, cells), uniquingKeysWith: { first, _ in first })
            }
            #expect(rows.count == expected.count)
            let others = ["humidity", "battery", "pressure", "voltage", "co2", "dew_point"]
            for (row, reading) in zip(rows, expected) {
                #expect(row.count == columns.count && row["source"] == "live", "\(row)")
                #expect(
                    row["seq"] == "\(reading.seq)" && row["time"] == reading.time && row["address"] == reading.address)
                #expect(
                    row["name"] == "Thermometer" && others.allSatisfy { row[$0] == "" },
                    "absent values are empty: \(row)")
                if let error = reading.error {
                    // Quoted, its quotes doubled (RFC 4180); the value's bytes in raw.
                    #expect(
                        row["profile"] == "" && row["celsius"] == "" && row["unit"] == "" && row["raw"] == reading.raw,
                        "\(row)")
                    #expect(row["error"] == "\"" + error.replacing("\"", with: "\"\"") + "\"")
                } else {
                    #expect(
                        row["profile"] == "pi-cputemp" && row["celsius"].flatMap(Double.init) == reading.celsius
                            && row["error"] == "")
                    let unit = row["unit"] ?? ""
                    #expect(["C", "F"].contains(unit) && row["raw"]?.hasSuffix(" " + unit) == true)
                }
            }

            let limited = try await fixture.history(range + ["--limit", "450"])
            #expect(limited == Array(expected.prefix(450)))
            // Both of the mock's Pis are named "Thermometer": a name selects every device with it.
            #expect(try await fixture.history(["thermometer"] + range) == expected)
            let second = "DC:A6:32:00:00:02"
            #expect(
                try await fixture.history([second.lowercased()] + range) == expected.filter { $0.address == second })
            #expect(Set(expected.map(\.address)).count == 2)

            let text = try await fixture.blectl(["history"] + range)
            let textLines = text.output.split(separator: "\n")
            #expect(textLines.first?.hasPrefix("TIME") == true && textLines.count == expected.count + 1)
            #expect(textLines.dropFirst().filter { $0.contains(" °C  (raw \"") }.count == expected.count - 1)
            #expect(textLines.contains { $0.contains(errors[0].error!) && $0.contains("(raw \(errors[0].raw!))") })
            #expect(textLines.last?.hasSuffix("#\(expected.last!.seq)") == true)

            // status: the file, its state, what it holds.
            let status = try await fixture.blectl(["status"]).output
            #expect(
                status.contains(
                    #/History: +/.+/history\.sqlite3 \(ok\)\n +[0-9,]+ readings since [0-9-]+ [0-9:]+, [0-9.]+ [kMG]?B on disk/#
                ))

            let unknown = try await fixture.blectl(["history", "no-such-device"])
            #expect(unknown.status == 68 && unknown.errors.contains("no-such-device"))
            let bad = try await fixture.blectl(["history", "--since", "yesterday"])
            #expect(bad.status == 64 && bad.errors.contains("RFC 3339"))
            let backwards = try await fixture.blectl(["history", "--since", "1h", "--until", "2h"])
            #expect(backwards.status == 64)
            let empty = try await fixture.blectl(["history", "--since", "2h", "--until", "1h", "--json"])
            #expect(empty.status == 0 && empty.output == "[]\n")
        }
    }

    @Test(
        "a read-only state directory: live readings flow, status shows the history degraded, and it recovers",
        .enabled(if: RootRequirement.testRuns, "needs root to mount a file system"))
    func readOnlyStateDirectory() async throws {
        try await ScratchFileSystem.with(sizeBytes: 8 << 20) { fs in
            try await DaemonGroup.with { group in
                let fixture = try await group.launch(
                    arguments: ["--state-dir", fs.readOnly], configuration: "history_commit_interval = 200ms\n")
                try await fixture.waitForConnected(2)
                #expect(try await fixture.blectl(["read", "--timeout", "15"]).status == 0)
                let history = try await fixture.historyStatus()
                #expect(history["state"] as? String == "degraded")
                let reason = try #require(history["reason"] as? String)
                #expect(!reason.isEmpty)
                let text = try await fixture.blectl(["status"])
                #expect(
                    text.output.contains("History:") && text.output.contains("(degraded: \(reason))"), "\(text.output)")
                // Readings wait in memory meanwhile: history answers from there.
                #expect(try await !fixture.history(["--since", "1h"]).isEmpty)
                try fs.setReadOnly(false)
                try await fixture.waitForHistory {
                    $0["state"] as? String == "ok" && $0["rows"] as? Int ?? 0 > 0
                }
            }
        }
    }

    @Test("a damaged database at start is moved aside; a fresh one takes the readings")
    func damagedDatabaseAtStart() async throws {
        try await DaemonGroup.with { group in
            let state = group.directory.appendingPathComponent("state")
            try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
            let database = state.appendingPathComponent("history.sqlite3")
            try Data(String(repeating: "this is not an SQLite database\n", count: 200).utf8).write(to: database)
            let fixture = try await group.launch(
                arguments: ["--state-dir", state.path], configuration: "history_commit_interval = 200ms\n")
            try await fixture.waitForConnected(2)
            try await fixture.waitForHistory { $0["state"] as? String == "ok" && $0["rows"] as? Int ?? 0 > 0 }
            let files = try FileManager.default.contentsOfDirectory(atPath: state.path)
            #expect(files.contains { $0.hasPrefix("history.sqlite3.corrupt-") }, "\(files)")
            #expect(fixture.daemon.log().contains("history.sqlite3.corrupt-"))
            #expect(try await !fixture.history(["--since", "1h"]).isEmpty)
        }
    }

    @Test("history = no: readings flow, no database is made, history is unavailable, status has none; not with MQTT")
    func historyOff() async throws {
        try await DaemonGroup.with { group in
            let state = group.directory.appendingPathComponent("state").path
            let fixture = try await group.launch(arguments: ["--state-dir", state], configuration: "history = no\n")
            try await fixture.waitForConnected(2)
            let read = try await fixture.blectl(["read", "--json", "--timeout", "15"])
            #expect(read.status == 0 && read.output.contains("celsius"), "\(read)")
            let history = try await fixture.blectl(["history", "--since", "1h"])
            #expect(history.status != 0 && history.errors.contains("keeps no history"), "\(history)")
            let status = try await fixture.status()
            #expect(status["history"] == nil || status["history"] is NSNull, "\(status)")
            #expect((status["last_seq"] as? UInt64 ?? 0) > 0)
            #expect(!FileManager.default.fileExists(atPath: state + "/history.sqlite3"))

            let mqtt = try group.spawn(
                "mqtt", arguments: ["--state-dir", state + "-mqtt", "--mqtt", "mqtt://127.0.0.1:1"],
                configuration: "history = no\n")
            #expect(await mqtt.waitForExit(timeout: .seconds(20)) == 78)
            #expect(mqtt.log().contains("mqtt_url needs the history (history = yes)"), "\(mqtt.log())")
        }
    }

    @Test("a second blectld on the same state directory exits 78 and says which process has it")
    func secondDaemonOnStateDirectory() async throws {
        try await DaemonGroup.with { group in
            let state = group.directory.appendingPathComponent("state").path
            let first = try await group.launch(arguments: ["--state-dir", state])
            let second = try group.spawn("second", arguments: ["--state-dir", state])
            #expect(await second.waitForExit(timeout: .seconds(20)) == 78)
            #expect(second.log().contains("is in use by process \(first.daemon.pid)"), "\(second.log())")
            #expect(first.daemon.isRunning)
            #expect(try await first.blectl(["status"]).status == 0)
        }
    }
}

/// One event of `blectl history --json`, as the tests compare them.
struct StoredReading: Equatable, CustomStringConvertible {
    var seq: UInt64
    /// As blectld writes it (RFC 3339, UTC, milliseconds): in time order as text too.
    var time: String
    var address: String
    var celsius: Double?
    /// The value as sent; a reading error's bytes in hex.
    var raw: String?
    /// Why the value was not a reading.
    var error: String?

    init(_ object: [String: Any]) throws {
        guard let seq = object["seq"] as? UInt64, let time = object["time"] as? String, rfc3339(time) != nil,
            let address = object["address"] as? String
        else { throw TestSupportError("not a stored reading: \(object)") }
        (self.seq, self.time, self.address) = (seq, time, address)
        celsius = object["celsius"] as? Double
        raw = object["raw"] as? String ?? object["raw_hex"] as? String
        error = object["error"] as? String
    }

    var description: String { "#\(seq) \(time) \(address) \(celsius.map { "\($0)" } ?? "-")" }
}

extension DaemonFixture {
    /// `blectl history --json ARGS`, which must succeed.
    func history(_ arguments: [String]) async throws -> [StoredReading] {
        let result = try await blectl(["history", "--json"] + arguments, timeout: .seconds(120))
        guard result.status == 0,
            let objects = try JSONSerialization.jsonObject(with: Data(result.output.utf8)) as? [[String: Any]]
        else { throw TestSupportError("blectl history \(arguments) exited \(result.status): \(result.errors)") }
        return try objects.map(StoredReading.init)
    }

    /// `blectl status --json` as an object.
    func status() async throws -> [String: Any] {
        let result = try await blectl(["status", "--json"])
        guard let object = ChildProcessLines.parse(result.output) else {
            throw TestSupportError("blectl status --json: \(result.status) \(result.errors)")
        }
        return object
    }

    /// The `history` object of `status`.
    func historyStatus() async throws -> [String: Any] {
        guard let history = try await status()["history"] as? [String: Any] else {
            throw TestSupportError("status has no history")
        }
        return history
    }

    /// Waits until `condition` holds for the `history` object of `status`.
    func waitForHistory(
        within timeout: Duration = .seconds(30), _ condition: ([String: Any]) async throws -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        var history: [String: Any] = [:]
        while ContinuousClock.now < deadline {
            history = try await historyStatus()
            if try await condition(history) { return }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw TestSupportError("the history did not get there in \(timeout): \(history)")
    }

    /// Waits until blectld's log contains `text`.
    func waitForLog(_ text: String, within timeout: Duration = .seconds(30)) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if daemon.log().contains(text) { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestSupportError("blectld did not log \"\(text)\" in \(timeout)")
    }
}

extension SocketClient {
    /// The `seq` of each event line read until `enough` says so, the connection ends or
    /// nothing comes for the receive timeout; replies and the hello are skipped.
    func eventSeqs(until enough: ([UInt64]) -> Bool) throws -> [UInt64] {
        var seqs: [UInt64] = []
        while !enough(seqs), let line = readLine() {
            if line.contains(#""ok":"#) || line.contains(#""type":"hello""#) { continue }
            guard let seq = Self.seq(in: line) else { throw TestSupportError("an event without seq: \(line)") }
            seqs.append(seq)
        }
        return seqs
    }

    /// What a client far behind does to resume after `seq`: `history` since its last `seq`
    /// until no `more` (caught up), then `subscribe`, then `history` once more for what came
    /// meanwhile, then pushed events until one follows the history; `subscribed` runs once it
    /// has subscribed. (Subscribing first
    /// would have the stream pile up beside 100 pages for this test's slow client.)
    func resume(after seq: UInt64, subscribed: () -> Void = {}) throws -> (
        seqs: [UInt64], fromHistory: Int, pages: Int
    ) {
        guard readObject()?["type"] as? String == "hello" else { throw TestSupportError("no hello") }
        var pushed: [UInt64] = []
        var history: [UInt64] = []
        var nextID = 0
        func page() throws -> Bool {
            nextID += 1
            send(#"{"v":1,"id":\#(nextID),"cmd":"history","since":\#(history.last ?? seq)}"# + "\n")
            let result = try reply(to: nextID, pushed: &pushed)
            guard result["complete"] as? Bool == true else { throw TestSupportError("history not complete") }
            history += (result["events"] as? [[String: Any]] ?? []).compactMap { $0["seq"] as? UInt64 }
            return result["more"] as? Bool ?? false
        }
        while try page() {}
        nextID += 1
        send(#"{"v":1,"id":\#(nextID),"cmd":"subscribe","events":["reading","reading_error"]}"# + "\n")
        _ = try reply(to: nextID, pushed: &pushed)
        subscribed()
        while try page() {}
        let last = history.last ?? seq
        pushed += try eventSeqs { ($0.last ?? 0) > last }
        return (history + pushed.filter { $0 > last }, history.count, nextID - 1)
    }

    /// Reads until the reply with `id`, keeping the `seq` of events pushed meanwhile; its result.
    private func reply(to id: Int, pushed: inout [UInt64]) throws -> [String: Any] {
        while let line = readLine() {
            guard line.contains(#""ok":"#) else {
                if let seq = Self.seq(in: line) { pushed.append(seq) }
                continue
            }
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                object["id"] as? Int == id, object["ok"] as? Bool == true,
                let result = object["result"] as? [String: Any]
            else { throw TestSupportError("unexpected reply: \(line.prefix(300))") }
            return result
        }
        throw TestSupportError("the connection ended before the reply to request \(id)")
    }

    private static func seq(in line: String) -> UInt64? {
        guard let match = line.firstMatch(of: /"seq":([0-9]+)/) else { return nil }
        return UInt64(match.output.1)
    }
}
