import BlectlProtocol
@testable import HTTPOutput
import TestSupport
import Testing

/// The adapters on the page and in `/metrics` (issue 36), from `status`' `adapters` and
/// `missing_adapters` as the central bridge fills them.
@Suite("Adapters on the page and in /metrics")
struct AdapterReportTests {
    static let hci0 = AdapterStatus(
        name: "hci0", address: "00:1A:7D:DA:71:10", alias: "BlueZ 5.66", powered: true, discovering: true,
        devicesHeard: 7, devicesOwned: 6, connected: 2, links: 2, linkLimit: 5, primary: true, recoverySteps: 0)

    static func withAdapters(
        _ adapters: [AdapterStatus], missing: [String]?, _ body: (TestOutput) async throws -> Void
    ) async throws {
        try await withTestOutput { output in
            await output.hub.addStatusContributor { status in
                status.setSection(adapters)
                status.setSection(missing.map(MissingAdapters.init))
            }
            await output.apply([.adapterState(adapter: "hci0", state: .poweredOn)])
            try await body(output)
        }
    }

    @Test("one adapter: no table on the page; its per-adapter series labelled by address and interface")
    func oneAdapter() async throws {
        try await Self.withAdapters([Self.hci0], missing: nil) { output in
            let page = try await output.get("/").text
            #expect(!page.contains("class=\"adapters\""))
            let families = try await parsePrometheus(try await output.get("/metrics").text)
            let labels = ["adapter": "00:1A:7D:DA:71:10", "interface": "hci0"]
            #expect(value(families, "blectl_adapter_up", labels) == 1)
            #expect(value(families, "blectl_adapter_discovering", labels) == 1)
            #expect(value(families, "blectl_adapter_devices_heard", labels) == 7)
            #expect(value(families, "blectl_adapter_connected", labels) == 2)
            #expect(value(families, "blectl_adapter_devices_owned", labels) == 6)
            #expect(value(families, "blectl_adapter_links", labels) == 2)
            #expect(value(families, "blectl_adapter_link_limit", labels) == 5)
            #expect(families["blectl_adapter_links"]?.type == "gauge")
            #expect(families["blectl_adapter_recovery_steps"]?.type == "counter")
            #expect(value(families, "blectl_adapter_recovery_steps_total", labels) == 0)
            #expect(value(families, "blectl_adapter_powered", [:]) == 1)
        }
    }

    @Test("one adapter and one configured but missing: the table names the missing one, its gauge is 0")
    func missingAdapter() async throws {
        var off = Self.hci0
        off.powered = false
        off.discovering = false
        try await Self.withAdapters([off], missing: ["00:1A:7D:DA:71:99"]) { output in
            let page = try await output.get("/").text
            #expect(page.contains("<table class=\"adapters\">"))
            #expect(page.contains("<tr class=\"off\" data-adapter=\"hci0\"><td>hci0</td>"))
            #expect(page.contains("<tr class=\"missing\" data-adapter=\"00:1A:7D:DA:71:99\">"))
            #expect(page.contains("configured, not present"))
            let families = try await parsePrometheus(try await output.get("/metrics").text)
            #expect(value(families, "blectl_adapter_up", ["adapter": "00:1A:7D:DA:71:10", "interface": "hci0"]) == 0)
            #expect(value(families, "blectl_adapter_up", ["adapter": "00:1A:7D:DA:71:99"]) == 0)
        }
    }

    @Test("two adapters: the table shows each one's devices owned and links of its limit")
    func ownedAndLinks() async throws {
        var second = Self.hci0
        second.name = "hci1"
        second.devicesOwned = 1
        second.links = 0
        second.primary = false
        var older = second
        older.name = "hci2"
        older.links = nil
        older.linkLimit = nil
        try await Self.withAdapters([Self.hci0, second, older], missing: nil) { output in
            let page = try await output.get("/").text
            #expect(page.contains("<th>owned</th><th>links</th>"))
            #expect(page.contains("<td>7</td><td>6</td><td class=\"links\">2 of 5</td><td>2</td></tr>"), "\(page)")
            #expect(page.contains("<td>7</td><td>1</td><td class=\"links\">0 of 5</td><td>2</td></tr>"))
            // From a daemon that does not tell its links: a dash, and no sample.
            #expect(page.contains("<td class=\"links\">–</td>"))
            let families = try await parsePrometheus(try await output.get("/metrics").text)
            #expect(value(families, "blectl_adapter_links", ["interface": "hci1"]) == 0)
            #expect(value(families, "blectl_adapter_links", ["interface": "hci2"]) == nil)
            #expect(value(families, "blectl_adapter_devices_owned", ["interface": "hci2"]) == 1)
        }
    }

    @Test("a name from the air is escaped in the table")
    func escapedAlias() async throws {
        var odd = Self.hci0
        odd.name = "hci<1>"
        try await Self.withAdapters([Self.hci0, odd], missing: nil) { output in
            let page = try await output.get("/").text
            #expect(page.contains("data-adapter=\"hci&lt;1&gt;\""))
            #expect(!page.contains("hci<1>"))
        }
    }
}

/// The value of the sample named `sample` whose labels include `labels`.
private func value(_ families: [String: MetricFamily], _ sample: String, _ labels: [String: String]) -> Double? {
    families.values.flatMap(\.samples).first { candidate in
        candidate.name == sample && labels.allSatisfy { candidate.labels[$0.key] == $0.value }
    }?.value
}
