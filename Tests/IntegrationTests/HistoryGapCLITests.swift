import Foundation
import TestSupport
import Testing

@Suite("blectl history: gaps the daemon reports")
struct HistoryGapCLITests {
    static let first =
        #"{"address":"DC:A6:32:00:00:01","celsius":21.5,"name":"Sensor","raw":"21.5 C","seq":1,"#
        + #""time":"2026-11-30T01:00:00.000Z","unit":"C"}"#
    static let second =
        #"{"address":"DC:A6:32:00:00:01","celsius":21.7,"name":"Sensor","raw":"21.7 C","seq":2,"#
        + #""source":"memory","time":"2026-11-30T01:30:00.000Z","unit":"C"}"#
    static let gap =
        #"{"from":"2026-11-30T01:00:00.000Z","reason":"gateway stopped","until":"2026-11-30T01:20:00.000Z"}"#
    static let deviceGap =
        #"{"address":"DC:A6:32:00:00:01","from":"2026-11-30T01:40:00.000Z","reason":"not heard","#
        + #""until":"2026-11-30T02:00:00.000Z"}"#

    @Test("text shows each gap once among the readings, in time order; CSV and JSON tell them on stderr")
    func gaps() async throws {
        let socket = FileManager.default.temporaryDirectory.appendingPathComponent(
            "blectl-gaps-\(UUID().uuidString.prefix(8)).sock"
        ).path
        let history =
            #"{"complete":true,"events":["# + Self.first + "," + Self.second + #"],"gaps":["# + Self.deviceGap + ","
            + Self.gap + "," + Self.gap + #"],"last_seq":2,"more":false}"#
        let daemon = try ScriptedDaemon(socket: socket, results: ["history": history], events: [])
        defer { daemon.stop() }
        let range = ["--since", "2026-11-30T00:00:00Z", "--until", "2026-11-30T03:00:00Z"]
        var environment = ProcessInfo.processInfo.environment
        environment["TZ"] = "UTC"
        let text = try await run(
            CLIUsageTests.blectl, ["--socket", socket, "history"] + range, environment: environment)
        #expect(text.status == 0, "\(text)")
        let lines = text.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 5, "\(lines)")
        #expect(lines[1].contains("21.5 °C"))
        #expect(lines[2].hasPrefix("-- no readings from 2026-11-30 01:00:00 to 2026-11-30 01:20:00: gateway stopped"))
        #expect(lines[3].contains("21.7 °C") && lines[3].contains("from memory"), "\(lines[3])")
        #expect(
            lines[4].hasPrefix(
                "-- no readings from DC:A6:32:00:00:01 from 2026-11-30 01:40:00 to 2026-11-30 02:00:00: not heard"))

        let csv = try await run(
            CLIUsageTests.blectl, ["--socket", socket, "history", "--csv"] + range, environment: environment)
        #expect(csv.output.split(separator: "\n").count == 3)
        #expect(csv.output.split(separator: "\n").last?.hasSuffix(",memory") == true, "\(csv.output)")
        #expect(csv.errors.components(separatedBy: "gateway stopped").count == 2, "once: \(csv.errors)")
        #expect(csv.errors.contains("not heard"))
    }
}
