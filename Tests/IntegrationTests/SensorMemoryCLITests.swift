import Foundation
import TestSupport
import Testing

/// `blectl memory` and the `memory_download` request against `blectld --mock` with a memory
/// sensor (docs/sensor-memory.md, "On request").
@Suite("blectl memory: a sensor's memory read on request")
struct SensorMemoryCLITests {
    static let sensor = "A4:C1:38:EE:00:01"
    /// One memory sensor, 90 records a minute apart, its clock 5 minutes behind; 30 ms a
    /// record, so a download lasts about 3 s and a second request finds it running.
    static let mockOptions =
        "--fast --notify-interval 200ms --memory-sensors 1 --memory-interval 60s --memory-preload 90 "
        + "--clock-drift -300 --memory-pace 30ms"

    static func object(_ text: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    }

    /// The first download: asked for until the daemon has heard the sensor (not_found, 68, before).
    static func firstDownload(_ fixture: DaemonFixture) async throws -> [String: Any] {
        var reply: (status: Int32, output: String, errors: String) = (68, "", "")
        _ = await eventually(within: .seconds(30)) {
            reply = (try? await fixture.blectl(["memory", sensor, "--json"])) ?? (1, "", "")
            return reply.status != 68
        }
        #expect(reply.status == 0, "\(reply.errors)")
        return try #require(object(reply.output), "\(reply.output)")
    }

    /// One request line on the socket and its reply.
    static func request(_ fixture: DaemonFixture, _ line: String) async throws -> [String: Any] {
        let socket = fixture.socket
        let reply = try await onOwnThread {
            let client = try SocketClient(path: socket, receiveTimeout: 20)
            _ = client.readLine()
            client.send(line + "\n")
            return client.readLine() ?? ""
        }
        return object(reply) ?? [:]
    }

    @Test("a download stores the memory's records, a second finds them duplicates, one running is joined")
    func downloadOnRequest() async throws {
        try await DaemonFixture.with(mockOptions: Self.mockOptions) { fixture in
            let first = try await Self.firstDownload(fixture)
            let stored = first["stored"] as? Int ?? 0
            #expect(first["address"] as? String == Self.sensor)
            #expect(first["last_result"] as? String == "finished", "\(first)")
            #expect(first["downloads"] as? Int == 1)
            // 90 records; the newest may share its minute with the live readings.
            #expect(stored >= 88 && stored + (first["duplicates"] as? Int ?? 0) >= 90, "\(first)")
            #expect(abs((first["clock_drift_seconds"] as? Int ?? 0) + 300) <= 2, "\(first)")
            let history = try await fixture.blectl(["history", Self.sensor, "--since", "3h", "--csv"])
            let memory = history.output.split(separator: "\n").filter { $0.hasSuffix(",memory") }
            #expect(memory.count == stored, "\(history.output)")

            // Two requests at once: the second joins the first's download, which finds nothing new.
            async let one = fixture.blectl(["memory", Self.sensor, "--json"])
            try await Task.sleep(for: .milliseconds(300))
            let other = try await fixture.blectl(["memory", Self.sensor, "--json"])
            let again = try #require(Self.object(try await one.output))
            #expect(Self.object(other.output)?["last_download"] as? String == again["last_download"] as? String)
            #expect(again["downloads"] as? Int == 2, "joined, not repeated: \(again)")
            #expect(again["stored"] as? Int == 0, "\(again)")
            #expect((again["duplicates"] as? Int ?? 0) >= stored, "\(again)")

            // The table of every sensor, as status shows it.
            let table = try await fixture.blectl(["memory"])
            #expect(table.status == 0)
            let lines = table.output.split(separator: "\n")
            #expect(lines.first?.hasPrefix("MEMORY OF") == true && lines.count == 2, "\(table.output)")
            #expect(lines.last?.contains("\(Self.sensor)") == true && lines.last?.contains("finished") == true)
        }
    }

    @Test("errors: an unknown sensor, a bad address, a download outlasting the timeout")
    func errors() async throws {
        try await DaemonFixture.with(mockOptions: Self.mockOptions) { fixture in
            _ = try await Self.firstDownload(fixture)
            let unknown = try await fixture.blectl(["memory", "A4:C1:38:EE:00:09"])
            #expect(unknown.status == 68 && unknown.errors.contains("no memory-capable sensor"), "\(unknown.errors)")
            let thermometer = try await Self.request(
                fixture, #"{"v":1,"id":2,"cmd":"memory_download","address":"DC:A6:32:00:00:01"}"#)
            #expect((thermometer["error"] as? [String: Any])?["code"] as? String == "not_found", "\(thermometer)")
            let bad = try await Self.request(fixture, #"{"v":1,"id":3,"cmd":"memory_download","address":"nope"}"#)
            #expect((bad["error"] as? [String: Any])?["code"] as? String == "bad_request", "\(bad)")

            let late = try await fixture.blectl(["memory", Self.sensor, "--timeout", "0.2"])
            #expect(late.status == 75 && late.errors.contains("goes on"), "\(late.status) \(late.errors)")
            // It went on, and ended.
            let ended = await eventually(within: .seconds(20)) {
                let list = try? await fixture.blectl(["memory", "--json"])
                let entries =
                    (try? JSONSerialization.jsonObject(with: Data((list?.output ?? "").utf8))) as? [[String: Any]]
                return entries?.first?["downloads"] as? Int == 2
            }
            #expect(ended)
        }
    }

    @Test("sensor_memory = off, or history = no: unavailable, naming the setting")
    func unavailable() async throws {
        for (configuration, setting) in [
            ("sensor_memory = off\n", "sensor_memory = off"), ("history = no\n", "history = no"),
        ] {
            try await DaemonFixture.with(mockOptions: Self.mockOptions, configuration: configuration) { fixture in
                let asked = try await fixture.blectl(["memory", Self.sensor])
                #expect(asked.status == 3 && asked.errors.contains(setting), "\(asked.status) \(asked.errors)")
                let list = try await fixture.blectl(["memory"])
                #expect(list.status == 0 && list.output.contains("reads no sensor memory"), "\(list.output)")
            }
        }
    }
}
