import BlectlProtocol
import TestSupport
import Testing

@Suite("status sections over HTTP")
struct StatusSectionHTTPTests {
    @Test("a section no one here knows: in /api/status as set, its numbers and flags as /metrics gauges")
    func unknownSection() async throws {
        try await withTestOutput { output in
            await output.hub.addStatusContributor { status in
                status.setSection(ExampleStatus.sample)
                // A family of that name exists: left to it. A name with characters a metric cannot hold.
                status.setSection(named: "bluez", .object(["up": .number("5"), "name": .string("x")]))
                status.setSection(named: "odd-name", .object(["x.y": .number("2.5"), "off": .bool(false)]))
            }
            await output.apply([.adapterState(adapter: "hci0", state: .poweredOn)])
            let api = try await output.get("/api/status")
            #expect(api.status == 200)
            #expect(
                api.text.contains(ExampleStatus.sampleJSON),
                "\(api.text)")
            let decoded = try JSONLines.decode(Reply<StatusResult>.self, from: api.body).get()
            #expect(decoded.sections == (await output.hub.status()).sections)

            let text = try await output.get("/metrics").text
            let lines = text.split(separator: "\n").map(String.init)
            #expect(lines.contains("blectl_example_queued 3") && lines.contains("blectl_example_healthy 1"), "\(text)")
            #expect(lines.contains { $0.hasPrefix("# HELP blectl_example_queued ") && $0.contains("example") })
            #expect(!text.contains("blectl_example_items"), "a list has no gauge")
            #expect(lines.contains("blectl_odd_name_x_y 2.5") && lines.contains("blectl_odd_name_off 0"), "\(text)")
            #expect(lines.contains("blectl_bluez_up 1") && !lines.contains("blectl_bluez_up 5"), "\(text)")
            #expect(!text.contains("blectl_bluez_name"), "a string has no gauge")
            // Known sections keep their own families, and only those.
            #expect(lines.contains { $0.hasPrefix("blectl_history_rows ") })
            #expect(!text.contains("blectl_history_pending"))
            let families = try await parsePrometheus(text)
            #expect(families["blectl_example_queued"]?.type == "gauge")
            #expect(families["blectl_example_healthy"]?.samples.first?.value == 1)
        }
    }
}
