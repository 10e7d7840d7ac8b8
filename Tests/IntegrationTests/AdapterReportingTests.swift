import Foundation
import TestSupport
import Testing

/// Several adapters reported (issue 36, "Reporting"): `blectl scan`'s adapters, `/metrics`'
/// per-adapter families, the page's adapter table and the MQTT adapters topic, against
/// `blectld --mock` with two adapters (`hci1` hears everything at about -80 dBm).
@Suite("Several adapters reported: scan, /metrics, the page, MQTT", .serialized)
struct AdapterReportingTests {
    static let hci0 = "00:1A:7D:DA:71:10"
    static let hci1 = "00:1A:7D:DA:71:11"
    static let absent = "00:1A:7D:DA:71:99"
    static let sensor = "A4:C1:38:AD:00:01"
    static let twoAdapters = "--fast --notify-interval 200ms --adapters 2 --adapter-rssi hci1=-80 --advertisers 2"

    static func json(_ text: String) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
    }

    @Test("blectl scan: each adapter that hears a device, with its RSSI, in --json and in the RSSI column")
    func scanTwoAdapters() async throws {
        try await DaemonFixture.with(mockOptions: Self.twoAdapters, arguments: ["--adapters", "auto"]) { fixture in
            let scan = try await fixture.blectl(["scan", "--all", "--json", "--timeout", "3"])
            #expect(scan.status == 0, "\(scan.errors)")
            let rows = try Self.json(scan.output)
            for row in rows {
                for key in ["address", "name", "rssi", "thermometer", "connected", "profile", "adapters"] {
                    #expect(row.keys.contains(key), "\(key) missing in \(row)")
                }
            }
            let sensor = try #require(rows.first { $0["address"] as? String == Self.sensor }, "\(rows)")
            let adapters = try #require(sensor["adapters"] as? [[String: Any]])
            #expect(adapters.map { $0["adapter"] as? String } == ["hci0", "hci1"])
            #expect(adapters.allSatisfy { Set($0.keys) == ["adapter", "rssi"] })
            let far = try #require(adapters.last?["rssi"] as? Int)
            #expect((-95 ... -65).contains(far), "hci1 heard it at \(far)")
            #expect(adapters.first?["rssi"] is Int)

            let text = try await fixture.blectl(["scan", "--all", "--timeout", "3"])
            #expect(text.status == 0)
            let line = try #require(
                text.output.split(separator: "\n").first { $0.contains(Self.sensor) }, "\(text.output)")
            #expect(line.contains("hci0 -") && line.contains(", hci1 -"), "\(line)")
            #expect(!line.contains("dBm"))
        }
    }

    @Test("blectl scan with one adapter: one entry in adapters, and the RSSI column as it was")
    func scanOneAdapter() async throws {
        try await DaemonFixture.with(mockOptions: "--fast --notify-interval 200ms --advertisers 1") { fixture in
            let scan = try await fixture.blectl(["scan", "--all", "--json", "--timeout", "3"])
            let rows = try Self.json(scan.output)
            let sensor = try #require(rows.first { $0["address"] as? String == Self.sensor }, "\(rows)")
            let adapters = try #require(sensor["adapters"] as? [[String: Any]])
            #expect(adapters.map { $0["adapter"] as? String } == ["hci0"])
            #expect(adapters.first?["rssi"] as? Int != nil)
            let text = try await fixture.blectl(["scan", "--all", "--timeout", "3"])
            let line = try #require(
                text.output.split(separator: "\n").first { $0.contains(Self.sensor) }, "\(text.output)")
            #expect(line.contains(" dBm") && !line.contains("hci0"), "\(line)")
        }
    }

    @Test("/metrics labels per-adapter series by address and interface, the page lists the adapters, MQTT carries them")
    func metricsPageAndMQTT() async throws {
        try await MQTTBroker.with { broker in
            let arguments = [
                "--log-level", "debug", "--adapters", "\(Self.hci0),\(Self.hci1),\(Self.absent)", "--http",
                "127.0.0.1:0", "--mqtt", broker.url, "--mqtt-gateway", "gw1",
            ]
            try await DaemonFixture.with(mockOptions: Self.twoAdapters, arguments: arguments) { fixture in
                try await fixture.waitForConnected(2)
                let port = try fixture.httpPort()
                let first = ["adapter": Self.hci0, "interface": "hci0"]
                let second = ["adapter": Self.hci1, "interface": "hci1"]
                var families: [String: MetricFamily] = [:]
                #expect(
                    await eventually(within: .seconds(20)) {
                        families = (try? await parsePrometheus(try await request(port, "/metrics").text)) ?? [:]
                        return (value(families, "blectl_adapter_devices_heard", second) ?? 0) > 0
                    })
                #expect(value(families, "blectl_adapter_up", first) == 1)
                #expect(value(families, "blectl_adapter_up", second) == 1)
                #expect(value(families, "blectl_adapter_up", ["adapter": Self.absent]) == 0)
                #expect(value(families, "blectl_adapter_discovering", second) == 1)
                #expect(value(families, "blectl_adapter_connected", first) == 2)
                #expect(value(families, "blectl_adapter_connected", second) == 0)
                #expect(value(families, "blectl_adapter_links", first) == 2)
                #expect(value(families, "blectl_adapter_links", second) == 0)
                #expect(value(families, "blectl_adapter_link_limit", first) == 5)
                #expect((value(families, "blectl_adapter_devices_owned", first) ?? 0) >= 2)
                #expect(families["blectl_adapter_up"]?.type == "gauge")
                // The unlabelled family of one adapter is as it was.
                #expect(value(families, "blectl_adapter_powered", [:]) == 1)
                // hci1 hears everything at -80 dBm: hci0 owns the thermometers and holds their links.
                let status = try await fixture.blectl(["status"])
                let row = try #require(
                    status.output.split(separator: "\n").first { $0.contains("hci0 \(Self.hci0)") }, "\(status.output)")
                #expect(row.contains(" owned, 2 of 5 links, 2 connected"), "\(row)")
                let other = try #require(
                    status.output.split(separator: "\n").first { $0.contains("hci1 \(Self.hci1)") }, "\(status.output)")
                #expect(other.contains(" owned, 0 of 5 links, 0 connected"), "\(other)")
                // The configured adapter that never appears: blectld runs with the others and says so.
                #expect(status.output.contains("\(Self.absent) configured, not present"), "\(status.output)")
                let log = fixture.daemon.log()
                #expect(
                    log.contains("configured adapter \(Self.absent) not present: running with hci0, hci1"), "\(log)")
                let json = try await fixture.blectl(["status", "--json"])
                let statusObject = try #require(
                    try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
                let owned = (statusObject["adapters"] as? [[String: Any]] ?? []).compactMap {
                    $0["devices_owned"] as? Int
                }
                #expect(owned.count == 2 && owned[0] >= 2, "\(owned)")

                let page = try await request(port, "/").text
                #expect(page.contains("<table class=\"adapters\">"))
                #expect(page.contains("<tr class=\"on\" data-adapter=\"hci0\">"))
                #expect(page.contains("<tr class=\"on\" data-adapter=\"hci1\">"))
                #expect(page.contains("<tr class=\"missing\" data-adapter=\"\(Self.absent)\">"))

                let subscriber = try MQTTSubscriber(broker, topic: "blectl/gateways/#")
                defer { Task { await subscriber.stop() } }
                try await subscriber.wait("the retained adapters") {
                    !$0.filter { $0.topic.hasSuffix("/adapters") }.isEmpty
                }
                let message = try #require(subscriber.on("blectl/gateways/gw1/adapters").last)
                #expect(message.retained)
                let object = try #require(message.json)
                #expect(object["gateway"] as? String == "gw1")
                #expect(object["missing_adapters"] as? [String] == [Self.absent])
                let adapters = try #require(object["adapters"] as? [[String: Any]])
                #expect(adapters.map { $0["interface"] as? String } == ["hci0", "hci1"])
                #expect(adapters.map { $0["adapter_address"] as? String } == [Self.hci0, Self.hci1])
                for adapter in adapters {
                    #expect(adapter["powered"] as? Bool == true && adapter["discovering"] is Bool)
                    #expect(adapter["devices_heard"] is Int && adapter["devices_owned"] is Int)
                    #expect(adapter["links"] is Int && adapter["link_limit"] as? Int == 5)
                }
                #expect(subscriber.on("blectl/gateways/gw1/status").last?.payload == "online")

                // hci1 off: its gauge falls to 0 and the page shows it off; hci0's stay.
                try await fixture.inject("power-off", [("adapter", .string("hci1"))])
                #expect(
                    await eventually(within: .seconds(10)) {
                        families = (try? await parsePrometheus(try await request(port, "/metrics").text)) ?? [:]
                        return value(families, "blectl_adapter_up", second) == 0
                    })
                #expect(value(families, "blectl_adapter_up", first) == 1)
                #expect(try await request(port, "/").text.contains("<tr class=\"off\" data-adapter=\"hci1\">"))
            }
        }
    }
}

/// The value of the sample named `name` whose labels include `labels`.
private func value(_ families: [String: MetricFamily], _ name: String, _ labels: [String: String]) -> Double? {
    families.values.flatMap(\.samples).first { sample in
        sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value }
    }?.value
}
