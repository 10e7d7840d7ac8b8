import DBusCore
import Foundation
import MockBlueZ
import TestSupport
import Testing

/// `blectld --mock` with the mock's advertising sensors, through `blectl` and the socket.
extension CLITests {
    static let advertiserOptions = "--fast --thermometers 0 --others 0 --advertisers 6 --advertiser-interval 200ms"
    /// The encrypted BTHome sensor's key (the mock's), and a name for the pvvx sensor.
    static let advertiserConfiguration = """
        bthome_key A4:C1:38:AD:00:02 = 231d39c1d7cc1ab1aee224cd096db932
        alias A4:C1:38:AD:00:03 = Greenhouse

        """

    /// `blectl read --json` once every sensor has a reading.
    static func readAll(_ fixture: DaemonFixture, count: Int) async throws -> [[String: Any]] {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline {
            let read = try await fixture.blectl(["read", "--json", "--timeout", "5"])
            if read.status == 0, let data = read.output.data(using: .utf8),
                let reports = try JSONSerialization.jsonObject(with: data) as? [[String: Any]], reports.count >= count
            {
                return reports
            }
            try await Task.sleep(for: .milliseconds(200))
        }
        throw TestSupportError("\(count) advertising sensors did not all report within 20 s")
    }

    @Test("advertising sensors: read --json has every quantity and profile, the key decrypts, status counts them")
    func advertisingSensors() async throws {
        try await DaemonFixture.with(mockOptions: Self.advertiserOptions, configuration: Self.advertiserConfiguration) {
            fixture in
            let reports = try await Self.readAll(fixture, count: 6)
            let byAddress = Dictionary(uniqueKeysWithValues: reports.map { ($0["address"] as? String ?? "", $0) })
            let expected: [(String, String, [String])] = [
                ("A4:C1:38:AD:00:01", "bthome", ["humidity", "battery"]),
                ("A4:C1:38:AD:00:02", "bthome", ["humidity", "battery"]),
                ("A4:C1:38:AD:00:03", "pvvx", ["humidity", "battery", "voltage"]),
                ("A4:C1:38:AD:00:04", "atc1441", ["humidity", "battery", "voltage"]),
                ("A4:C1:38:AD:00:05", "ruuvi", ["humidity", "pressure", "voltage"]),
                ("A4:C1:38:AD:00:06", "govee-h5075", ["humidity", "battery"]),
            ]
            for (address, profile, quantities) in expected {
                let report = try #require(byAddress[address], "\(address) missing from \(reports)")
                #expect(report["profile"] as? String == profile, "\(address)")
                #expect((report["celsius"] as? Double).map { (5.0...35.0).contains($0) } == true, "\(address)")
                for quantity in quantities { #expect(report[quantity] is Double, "\(address) \(quantity)") }
                #expect(report["fresh"] as? Bool == true)
                // Advertisement profiles: raw is the payload in hex.
                let raw = report["raw"] as? String ?? ""
                #expect(!raw.isEmpty && raw.allSatisfy(\.isHexDigit), "\(address) raw \(raw)")
            }
            #expect(byAddress["A4:C1:38:AD:00:03"]?["name"] as? String == "Greenhouse")
            // Text shows the quantities beside the temperature, and the profile.
            let text = try await fixture.blectl(["read", "Greenhouse"])
            #expect(text.status == 0)
            #expect(text.output.contains("Greenhouse") && text.output.contains("%RH") && text.output.contains("[pvvx]"))
            // status: the scanning in use, the sensors, no packet lost.
            let status = try await fixture.blectl(["status", "--json"])
            let object = try #require(ChildProcessLines.parse(status.output))
            let adverts = try #require(object["advertisements"] as? [String: Any])
            #expect(adverts["scan_mode"] as? String == "active")
            #expect((adverts["sensors"] as? [Any])?.count == 6)
            #expect(adverts["errors"] as? Int == 0)
            let statusText = try await fixture.blectl(["status"])
            #expect(statusText.output.contains("6 sensors heard (active scanning)"))
            // scan shows the profile each device was recognised as, and its family.
            let scan = try await fixture.blectl(["scan", "--timeout", "1"])
            #expect(scan.output.contains("PROFILE") && scan.output.contains("govee-h5075"))
            #expect(scan.output.contains("SENSOR") && scan.output.contains("Govee H5072/H5075"))
            let scanJSON = try await fixture.blectl(["scan", "--timeout", "1", "--json"])
            let rows = try #require(
                try JSONSerialization.jsonObject(with: Data(scanJSON.output.utf8)) as? [[String: Any]])
            #expect(rows.contains { $0["profile"] as? String == "ruuvi" })
            let ruuvi = try #require(rows.first { $0["profile"] as? String == "ruuvi" })
            #expect(ruuvi["manufacturer"] as? String == "Ruuvi" && ruuvi["model"] as? String == "RuuviTag")
            #expect(ruuvi["family"] as? String == "RuuviTag (data format 5)")
        }
    }

    @Test("read --json names each reading's model and manufacturer: an advertising sensor's and the Pi's")
    func readingModelAndManufacturer() async throws {
        let options = "--fast --thermometers 1 --others 0 --advertisers 1 --advertiser-interval 200ms"
        try await DaemonFixture.with(mockOptions: options) { fixture in
            let reports = try await Self.readAll(fixture, count: 2)
            let byProfile = Dictionary(reports.map { ($0["profile"] as? String ?? "", $0) }) { first, _ in first }
            let bthome = try #require(byProfile["bthome"], "\(reports)")
            #expect(bthome["model"] as? String == "BTHome v2" && bthome["manufacturer"] as? String == "BTHome")
            let pi = try #require(byProfile["pi-cputemp"], "\(reports)")
            #expect(pi["model"] as? String == "cputemp peripheral" && pi["manufacturer"] as? String == "Raspberry Pi")
        }
    }

    @Test("scan_mode auto on bluetoothd --experimental without Govee: passive scanning, in status and the log")
    func passiveScanning() async throws {
        let configuration = Self.advertiserConfiguration + "advert_profiles = bthome, pvvx, atc1441, ruuvi\n"
        try await DaemonFixture.with(
            mockOptions: Self.advertiserOptions + " --experimental", configuration: configuration
        ) { fixture in
            _ = try await Self.readAll(fixture, count: 5)
            let status = try await fixture.blectl(["status", "--json"])
            let object = try #require(ChildProcessLines.parse(status.output))
            let adverts = try #require(object["advertisements"] as? [String: Any])
            #expect(adverts["scan_mode"] as? String == "passive")
            let text = try await fixture.blectl(["status"])
            #expect(text.output.contains("5 sensors heard (passive scanning)"), "\(text.output)")
            #expect(fixture.daemon.log().contains("advertisements: passive scanning (an advertisement monitor on hci0"))
        }
    }

    @Test("gatt_thermometers = no with passive scanning: sensors read, discovery never on, no Thermometer connected")
    func passiveOnly() async throws {
        let configuration =
            Self.advertiserConfiguration + "advert_profiles = bthome, pvvx, atc1441, ruuvi\ngatt_thermometers = no\n"
        let options = Self.advertiserOptions.replacingOccurrences(of: "--thermometers 0", with: "--thermometers 1")
        try await DaemonFixture.with(mockOptions: options + " --experimental", configuration: configuration) {
            fixture in
            _ = try await Self.readAll(fixture, count: 5)
            let status = try #require(ChildProcessLines.parse(try await fixture.blectl(["status", "--json"]).output))
            #expect((status["advertisements"] as? [String: Any])?["scan_mode"] as? String == "passive")
            #expect((status["connected"] as? [Any])?.isEmpty == true)
            let bus = try await DBusConnection.connect(to: .address(fixture.busAddress), label: "test-adapter")
            defer { Task { await bus.close() } }
            let discovering = try await bus.call(
                destination: "org.bluez", path: ObjectPath("/org/bluez/hci0"),
                interface: "org.freedesktop.DBus.Properties",
                member: "Get", arguments: [.string("org.bluez.Adapter1"), .string("Discovering")])
            #expect(discovering.arguments == [.variant(.boolean(false))])
            #expect(!fixture.daemon.log().contains("Thermometer"), "\(fixture.daemon.log())")
        }
    }

    @Test("advertising sensors' readings reach the history with their quantities")
    func advertisingHistory() async throws {
        try await DaemonFixture.with(mockOptions: Self.advertiserOptions, configuration: Self.advertiserConfiguration) {
            fixture in
            _ = try await Self.readAll(fixture, count: 6)
            let client = try SocketClient(path: fixture.socket)
            _ = client.readLine()
            client.send("{\"v\":1,\"id\":1,\"cmd\":\"history\",\"since\":0,\"address\":\"A4:C1:38:AD:00:05\"}\n")
            let reply = try #require(client.readObject())
            let result = try #require(reply["result"] as? [String: Any])
            let events = try #require(result["events"] as? [[String: Any]])
            let readings = events.filter { $0["type"] as? String == "reading" }
            #expect(!readings.isEmpty)
            for reading in readings {
                #expect(reading["profile"] as? String == "ruuvi")
                #expect(reading["pressure"] is Double && reading["humidity"] is Double && reading["voltage"] is Double)
            }
        }
    }

    @Test("a wrong BTHome key: reading errors for that sensor, the others read")
    func advertisingWrongKey() async throws {
        try await DaemonFixture.with(
            mockOptions: Self.advertiserOptions,
            configuration: "bthome_key A4:C1:38:AD:00:02 = 00112233445566778899aabbccddeeff\n"
        ) { fixture in
            let reports = try await Self.readAll(fixture, count: 5)
            #expect(!reports.contains { $0["address"] as? String == "A4:C1:38:AD:00:02" })
            let status = try await fixture.blectl(["status", "--json"])
            let adverts = try #require(ChildProcessLines.parse(status.output)?["advertisements"] as? [String: Any])
            #expect((adverts["errors"] as? Int ?? 0) > 0)
            #expect(fixture.daemon.log().contains("advertisement failed decryption"))
        }
    }
}

extension CLITests {
    @Test("host_cpu: the gateway's CPU temperature is a device of its own; no thermal zone, no device, and a note")
    func hostCPU() async throws {
        let zone = FileManager.default.temporaryDirectory.appendingPathComponent("blectl-zone-\(UUID())")
        try FileManager.default.createDirectory(at: zone, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: zone) }
        try "cpu-thermal\n".write(to: zone.appendingPathComponent("type"), atomically: true, encoding: .utf8)
        try "51234\n".write(to: zone.appendingPathComponent("temp"), atomically: true, encoding: .utf8)
        let configuration = "host_cpu = yes\nhost_cpu_zone = \(zone.path)\nhost_cpu_interval = 1s\n"
        try await DaemonFixture.with(
            mockOptions: "--fast --thermometers 0 --others 0 --advertisers 0",
            configuration: configuration
        ) { fixture in
            let reports = try await Self.readAll(fixture, count: 1)
            let report = try #require(reports.first)
            #expect(report["profile"] as? String == "host-cpu")
            #expect(report["celsius"] as? Double == 51.23)
            #expect((report["name"] as? String)?.hasSuffix(" CPU") == true)
            // A locally administered address, the same every start.
            let address = try #require(report["address"] as? String)
            #expect(UInt8(address.prefix(2), radix: 16).map { $0 & 0x03 == 0x02 } == true, "\(address)")
            // The next sample comes on the timer.
            try "52000\n".write(to: zone.appendingPathComponent("temp"), atomically: true, encoding: .utf8)
            let deadline = ContinuousClock.now + .seconds(10)
            var latest = 51.23
            while ContinuousClock.now < deadline, latest != 52 {
                latest = try await Self.readAll(fixture, count: 1).first?["celsius"] as? Double ?? latest
                try await Task.sleep(for: .milliseconds(200))
            }
            #expect(latest == 52)
        }
        try await DaemonFixture.with(
            mockOptions: "--fast --thermometers 0 --others 0 --advertisers 0",
            configuration: "host_cpu = yes\nhost_cpu_zone = /nonexistent/zone\n"
        ) { fixture in
            #expect(fixture.daemon.log().contains("host_cpu: /nonexistent/zone is not a thermal zone"))
            let read = try await fixture.blectl(["read", "--json", "--timeout", "1"])
            #expect(read.status == 75)
        }
    }
}

/// blectl-mock's choice of formats and names for its advertising sensors, and their
/// reports in the emit log (what bench/theengs_bench.py runs on).
extension CLITests {
    @Test("--advertiser-formats and --advertiser-name: the formats in the given order, one name; each report logged")
    func advertiserFormatsAndEmitLog() async throws {
        let emitLog = FileManager.default.temporaryDirectory.appendingPathComponent("blectl-emit-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: emitLog) }
        let options =
            "--fast --thermometers 0 --others 0 --advertisers 4 --advertiser-interval 200ms "
            + "--advertiser-formats bthome,pvvx --advertiser-name ATC_AD --emit-log \(emitLog.path)"
        try await DaemonFixture.with(mockOptions: options) { fixture in
            let reports = try await Self.readAll(fixture, count: 4)
            let profiles = Dictionary(
                uniqueKeysWithValues: reports.map { ($0["address"] as? String ?? "", $0["profile"] as? String ?? "") })
            #expect(
                profiles == [
                    "A4:C1:38:AD:00:01": "bthome", "A4:C1:38:AD:00:02": "pvvx", "A4:C1:38:AD:00:03": "bthome",
                    "A4:C1:38:AD:00:04": "pvvx",
                ])
            #expect(
                Set(reports.compactMap { $0["name"] as? String }) == [
                    "ATC_AD0001", "ATC_AD0002", "ATC_AD0003", "ATC_AD0004",
                ])
            // Several measurements of each sensor (two advertisements each) before the stop.
            #expect(
                await eventually(within: .seconds(20)) {
                    let status = try? await fixture.blectl(["status", "--json"])
                    let adverts = ChildProcessLines.parse(status?.output ?? "")?["advertisements"] as? [String: Any]
                    return (adverts?["advertisements"] as? Int ?? 0) >= 4 * 6
                })
        }
        // The mock writes its log as it stops: every sensor's reports, marked, their counters rising.
        #expect(
            await eventually(within: .seconds(10)) {
                ((try? Data(contentsOf: emitLog))?.count ?? 0) > 16
            })
        let data = [UInt8](try Data(contentsOf: emitLog))
        #expect(Array(data.prefix(16)) == Array("blectl-emitlog1\n".utf8))
        var counters: [UInt32: [UInt32]] = [:]
        for offset in stride(from: 16, to: data.count - 15, by: 16) {
            let word = { (at: Int) in (0..<4).reduce(UInt32(0)) { $0 | UInt32(data[offset + at + $1]) << (8 * $1) } }
            counters[word(0), default: []].append(word(4))
        }
        #expect(Set(counters.keys) == [0x8000_0000, 0x8000_0001, 0x8000_0002, 0x8000_0003])
        for (sensor, seen) in counters {
            #expect(seen == seen.sorted() && seen.last! > seen.first!, "\(sensor): \(seen)")
        }
    }

    @Test("make run (scripts/run-mock.sh) starts an advertising sensor of every format the mock plays")
    func makeRunShowsEveryFormat() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../scripts/run-mock.sh")
        let text = try String(contentsOf: script, encoding: .utf8)
        let count = try #require(
            text.firstRange(of: /--advertisers (\d+)/).flatMap { Int(text[$0].split(separator: " ")[1]) },
            "no --advertisers in run-mock.sh")
        #expect(count == MockAdvertiser.Format.allCases.count, "run-mock.sh starts \(count) advertisers")
    }

    @Test("--advertiser-formats with an unknown format: exit 64, naming the formats it takes")
    func advertiserFormatsUsage() async throws {
        let result = try await run(DaemonFixture.binary("blectl-mock"), ["--advertiser-formats", "bthome,bogus"])
        #expect(result.status == 64)
        #expect(
            result.errors.contains(
                "--advertiser-formats takes "
                    + MockAdvertiser.Format.allCases.map(\.rawValue).joined(separator: ", ") + ", not 'bogus'"),
            "\(result.errors)")
    }
}
