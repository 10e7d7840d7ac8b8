import Foundation
import TestSupport
import Testing

/// `blectld --mock --http`: the page in a real browser, a scrape of /metrics, and abusive
/// clients that leave the daemon and its readings alone.
@Suite("blectld's HTTP output", .serialized)
struct HTTPOutputIntegrationTests {
    /// Where the browser's screenshots are kept: `.build/test-artifacts/`.
    static let artifacts = DaemonFixture.products.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("test-artifacts")

    @Test("a browser shows one row and one plot per mock thermometer, with blectl read's values")
    func browser() async throws {
        // One notification an hour: the values stay those of `blectl read` while the browser looks.
        try await DaemonFixture.with(mockOptions: "--fast --notify-interval 60m", arguments: Self.http) { fixture in
            try await fixture.waitForConnected(2)
            let port = try fixture.httpPort()
            // Both values, however long a loaded run takes for the first (the default 10 s was
            // once too short at the suite's busiest moment in a clean-clone CI run).
            let read = try await fixture.blectl(["read", "--json", "--timeout", "60"])
            #expect(read.status == 0, "\(read.errors)")
            let reports = try #require(
                try JSONSerialization.jsonObject(with: Data(read.output.utf8)) as? [[String: Any]])
            #expect(reports.count == 2)
            let dom = try await Self.chromium(["--dump-dom", "http://127.0.0.1:\(port)/"])
            #expect(Self.count("<section class=\"device", in: dom) == 2)
            #expect(Self.count("<svg class=\"plot\"", in: dom) == 2)
            for report in reports {
                let address = try #require(report["address"] as? String)
                let section = try #require(Self.section(of: address, in: dom), "no row for \(address)")
                #expect(Self.attribute("data-seq", in: section) == "\(report["seq"] as? Int ?? -1)")
                let shown = try #require(Self.attribute("data-celsius", in: section).flatMap(Double.init))
                #expect(shown == report["celsius"] as? Double)
                #expect(section.contains("<svg class=\"plot\""))
            }
            try FileManager.default.createDirectory(at: Self.artifacts, withIntermediateDirectories: true)
            for (name, extra) in [
                ("http-page.png", ["--window-size=1200,800"]),
                ("http-page-dark.png", ["--window-size=1200,800", "--blink-settings=preferredColorScheme=0"]),
                ("http-page-phone.png", ["--window-size=390,844"]),
            ] {
                let file = Self.artifacts.appendingPathComponent(name)
                try? FileManager.default.removeItem(at: file)
                _ = try await Self.chromium(
                    extra + ["--hide-scrollbars", "--screenshot=\(file.path)", "http://127.0.0.1:\(port)/"])
                #expect(FileManager.default.fileExists(atPath: file.path), "no screenshot \(name)")
            }
        }
    }

    @Test("a browser shows the adapter in words and a Ruuvi card with every quantity /metrics has")
    func browserRuuvi() async throws {
        let options = "--fast --thermometers 0 --others 0 --advertisers 1 --advertiser-formats ruuvi"
        try await DaemonFixture.with(mockOptions: options, arguments: Self.http) { fixture in
            let port = try fixture.httpPort()
            let ruuvi = "A4:C1:38:AD:00:01"
            var metrics = ""
            #expect(
                await eventually(within: .seconds(20)) {
                    metrics = (try? await request(port, "/metrics").text) ?? ""
                    return metrics.contains("blectl_pressure_pascals{address=\"\(ruuvi)\"")
                })
            let dom = try await Self.chromium(["--dump-dom", "http://127.0.0.1:\(port)/"])
            #expect(dom.contains("adapter hci0 on"), "\(dom.prefix(2000))")
            #expect(!dom.contains("poweredOn"))
            let section = try #require(Self.section(of: ruuvi, in: dom), "no card for \(ruuvi)")
            for (quantity, family) in [
                ("humidity", "blectl_humidity_ratio"), ("pressure", "blectl_pressure_pascals"),
                ("voltage", nil), ("celsius", "blectl_temperature_celsius"),
            ] {
                let shown = quantity == "celsius" ? "data-celsius=" : "<span class=\"\(quantity)\""
                #expect(section.contains(shown), "\(quantity) missing: \(section)")
                if let family { #expect(metrics.contains("\(family){address=\"\(ruuvi)\""), "\(family)") }
            }
            try FileManager.default.createDirectory(at: Self.artifacts, withIntermediateDirectories: true)
            let file = Self.artifacts.appendingPathComponent("http-page-ruuvi.png")
            try? FileManager.default.removeItem(at: file)
            _ = try await Self.chromium(
                [
                    "--window-size=1200,600", "--hide-scrollbars", "--screenshot=\(file.path)",
                    "http://127.0.0.1:\(port)/",
                ])
            #expect(FileManager.default.fileExists(atPath: file.path), "no screenshot")
        }
    }

    @Test("Prometheus' parser reads every metric of a scrape")
    func scrape() async throws {
        try await DaemonFixture.with(arguments: Self.http) { fixture in
            try await fixture.waitForConnected(2)
            let port = try fixture.httpPort()
            // Both thermometers have reported once the gauges list both.
            var families: [String: MetricFamily] = [:]
            let both = await eventually {
                guard let text = try? await request(port, "/metrics").text,
                    let parsed = try? await parsePrometheus(text)
                else { return false }
                families = parsed
                return parsed["blectl_temperature_celsius"]?.samples.count == 2
            }
            #expect(both)
            for name in [
                "blectl_rssi_dbm", "blectl_last_reading_timestamp_seconds", "blectl_readings", "blectl_connects",
                "blectl_adapter_powered", "blectl_bluez_up", "blectl_history_rows", "blectl_socket_clients",
                "blectl_scan_watchdog_steps", "blectl_scan_watchdog_silent", "process_resident_memory_bytes",
                "process_cpu_seconds",
            ] {
                #expect(families[name] != nil, "\(name) missing")
            }
            #expect(families["blectl_adapter_powered"]?.samples.first?.value == 1)
            #expect(families["blectl_connects"]?.samples.count == 2)
        }
    }

    @Test("an HTTP address in use stops blectld with 78 (no restart loop under systemd) and names it")
    func httpAddressInUse() async throws {
        try await DaemonGroup.with { group in
            let first = try await group.launch(arguments: Self.http)
            let taken = "127.0.0.1:\(try first.httpPort())"
            let second = try group.spawn("second", arguments: ["--http", taken])
            #expect(await second.waitForExit(timeout: .seconds(20)) == 78)
            #expect(second.log().contains("HTTP: cannot listen on \(taken)"), "\(second.log())")
            #expect(first.daemon.isRunning)
        }
    }

    @Test("/metrics shows the MQTT output's connection and backlog")
    func mqttMetrics() async throws {
        try await MQTTBroker.with { broker in
            try await DaemonFixture.with(arguments: Self.http + MQTTTests.arguments(broker)) { fixture in
                try await fixture.waitForMQTT { $0["state"] as? String == "connected" }
                let port = try fixture.httpPort()
                let connected = await eventually {
                    guard let text = try? await request(port, "/metrics").text,
                        let families = try? await parsePrometheus(text)
                    else { return false }
                    return families["blectl_mqtt_connected"]?.samples.first?.value == 1
                        && families["blectl_mqtt_backlog"]?.samples.first != nil
                }
                #expect(connected, "blectl_mqtt_connected never 1")
            }
        }
    }

    @Test(
        "garbage, slowloris clients and 1,000 connections leave blectld and its readings alone",
        .enabled(if: heavyTestsRun, "many descriptors: make test runs it alone"))
    func abuse() async throws {
        try await DaemonFixture.with(mockOptions: "--fast --notify-interval 20ms", arguments: Self.http) { fixture in
            try await fixture.waitForConnected(2)
            let port = try fixture.httpPort()
            let subscriber = try SocketClient(path: fixture.socket, receiveTimeout: 10)
            #expect(subscriber.readObject()?["type"] as? String == "hello")
            subscriber.send("{\"v\":1,\"id\":1,\"cmd\":\"subscribe\",\"events\":[\"reading\"]}\n")
            #expect(subscriber.readObject()?["ok"] as? Bool == true)
            let watch = Task { try await onOwnThread { Self.follow(subscriber, for: .seconds(8)) } }
            let abuse = Task {
                try await onOwnThread {
                    // Slowloris clients dribble a header byte every half second throughout; garbage
                    // comes first, then 1,000 connections at once fill the rest (and the backlog).
                    let slow = try (0..<20).map { _ in try TCPConnection(port: port, timeout: 2) }
                    for connection in slow { connection.send(Array("GET /metrics HTTP/1.1\r\nX: ".utf8)) }
                    for round in 0..<8 {
                        let garbage = try TCPConnection(port: port, timeout: 2)
                        garbage.send((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ round) })
                    }
                    let flood = try ConnectionFlood(
                        port: port, count: 1000, request: "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                    for _ in 0..<8 {
                        for connection in slow { connection.send([UInt8(ascii: "X")]) }
                        Thread.sleep(forTimeInterval: 0.5)
                    }
                    let opened = flood.opened
                    flood.close()
                    return opened
                }
            }
            let opened = try await abuse.value
            #expect(opened == 1000)
            let (seqs, longestWait) = try await watch.value
            #expect(seqs.count > 100)
            #expect(seqs == Array(seqs.first!...seqs.last!), "readings were lost or reordered")
            // A stall, not a speed check: readings come every 10 ms on average.
            #expect(longestWait < .seconds(2))
            #expect(try await request(port, "/").status == 200)
            #expect(try await fixture.blectl(["status"]).status == 0)
            #expect(fixture.daemon.isRunning)
        }
    }

    static let http = ["--log-level", "debug", "--http", "127.0.0.1:0"]

    /// Reads reading events for `duration`: their `seq`s, and the longest wait between two.
    static func follow(_ client: SocketClient, for duration: Duration) -> ([Int], Duration) {
        var seqs: [Int] = []
        var longest = Duration.zero
        let clock = ContinuousClock()
        let end = clock.now + duration
        var last = clock.now
        while clock.now < end, let event = client.readObject() {
            guard let seq = event["seq"] as? Int else { continue }
            seqs.append(seq)
            longest = max(longest, clock.now - last)
            last = clock.now
        }
        return (seqs, longest)
    }

    /// Runs headless Chromium (Debian's `chromium`) with a profile of its own; returns stdout.
    static func chromium(_ arguments: [String]) async throws -> String {
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("blectl-chromium-\(UUID())")
        defer { try? FileManager.default.removeItem(at: profile) }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium") else {
            throw TestSupportError("no /usr/bin/chromium: install Debian's chromium (make test does)")
        }
        // --no-sandbox: the tests may run as root, where Chromium's sandbox refuses to start.
        let result = try await run(
            "/usr/bin/chromium",
            ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(profile.path)"] + arguments,
            timeout: .seconds(90))
        guard result.status == 0 else { throw TestSupportError("chromium exited \(result.status): \(result.errors)") }
        return result.output
    }

    static func count(_ needle: String, in text: String) -> Int {
        text.components(separatedBy: needle).count - 1
    }

    /// The `<section>` of the device at `address`.
    static func section(of address: String, in dom: String) -> String? {
        guard let start = dom.range(of: "data-address=\"\(address)\""),
            let end = dom.range(of: "</section>", range: start.upperBound..<dom.endIndex)
        else { return nil }
        return String(dom[start.lowerBound..<end.upperBound])
    }

    static func attribute(_ name: String, in html: String) -> String? {
        guard let start = html.range(of: "\(name)=\"") else { return nil }
        return String(html[start.upperBound...].prefix { $0 != "\"" })
    }
}

extension DaemonFixture {
    /// The port blectld's HTTP output listens on (it logs it at start).
    func httpPort() throws -> UInt16 {
        let marker = "HTTP: serving http://127.0.0.1:"
        guard let line = daemon.log().split(separator: "\n").first(where: { $0.contains(marker) }),
            let port = UInt16(line.split(separator: marker).last!.dropLast())
        else { throw TestSupportError("blectld logged no HTTP address") }
        return port
    }
}
