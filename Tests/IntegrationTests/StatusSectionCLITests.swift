import BlectlProtocol
import Foundation
import TestSupport
import Testing

@Suite("blectl status: sections it does not know")
struct StatusSectionCLITests {
    @Test("an unknown section shows under its name: values as rows, a list of objects as a table; --json as sent")
    func unknownSection() async throws {
        let started = Timestamp(rfc3339: "2026-11-30T00:00:00Z")!
        var status = StatusResult(adapter: "hci0", state: .poweredOn, connected: [], lastSeq: 7, started: started)
        status.setSection(SocketStatus(clients: 1))
        status.setSection(
            MQTTStatus(
                broker: "mqtt://broker:1883", clientID: "blectl-gw", gateway: "gw", state: .connected, since: started))
        status.setSection(
            ExampleStatus(
                queued: 3, healthy: true,
                items: [ExampleStatus.Item(name: "a", count: 1), ExampleStatus.Item(name: "bb", count: 20)]))
        let json = try JSONLines.encodeString(status)
        let socket = FileManager.default.temporaryDirectory.appendingPathComponent(
            "blectl-sections-\(UUID().uuidString.prefix(8)).sock"
        ).path
        let daemon = try ScriptedDaemon(socket: socket, results: ["status": json], events: [])
        defer { daemon.stop() }

        let text = try await run(CLIUsageTests.blectl, ["--socket", socket, "status"])
        #expect(text.status == 0, "\(text)")
        let lines = text.output.split(separator: "\n").map(String.init)
        let heading = try #require(lines.firstIndex { $0.hasPrefix("Example:") }, "\(text.output)")
        #expect(lines[heading].hasSuffix("  healthy true"), "\(lines[heading])")
        #expect(heading + 1 < lines.count && lines[heading + 1].drop { $0 == " " } == "queued 3", "\(text.output)")
        let title = try #require(lines.firstIndex(of: "Example items:"), "\(text.output)")
        #expect(
            Array(lines[(title + 1)...].prefix(3)) == ["  COUNT  NAME", "  1      a", "  20     bb"], "\(text.output)")
        // Known sections as ever; the socket's clients are not shown.
        #expect(
            lines.contains { $0.hasPrefix("MQTT:") && $0.hasSuffix("connected to mqtt://broker:1883 as gw, backlog 0") }
        )
        #expect(!text.output.contains("Socket") && !text.output.contains("clients"), "\(text.output)")

        let raw = try await run(CLIUsageTests.blectl, ["--socket", socket, "status", "--json"])
        #expect(raw.output == json + "\n")
    }
}
