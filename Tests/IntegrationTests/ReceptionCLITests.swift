import Foundation
import TestSupport
import Testing

/// `blectld --mock` with advertising sensors that lose advertisements: what `status` counts.
extension CLITests {
    /// Five formats with a counter and Govee without, one measurement per advertisement, 30 %
    /// of the advertisements not heard (drawn from the mock's seed).
    static let lossyAdvertisers =
        "--fast --thermometers 0 --others 0 --advertisers 6 --advertiser-interval 100ms --advertiser-repeats 1 "
        + "--advertiser-formats bthome,pvvx,atc1441,ruuvi,mibeacon,govee-h5075 --advertiser-loss 0.3"

    /// The `advertisements.sensors` of `status --json`, by address.
    static func receptionSensors(_ fixture: DaemonFixture) async throws -> [String: [String: Any]] {
        let status = try await fixture.blectl(["status", "--json"])
        let object = try #require(ChildProcessLines.parse(status.output))
        let adverts = try #require(object["advertisements"] as? [String: Any])
        let sensors = try #require(adverts["sensors"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: sensors.map { ($0["address"] as? String ?? "", $0) })
    }

    @Test("30 % of the advertisements lost: status counts received and missed, and the hour's ratio is 0.70 ± 0.05")
    func receptionUnderLoss() async throws {
        let emitLog = FileManager.default.temporaryDirectory.appendingPathComponent("blectl-emit-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: emitLog) }
        var final: [String: [String: Any]] = [:]
        try await DaemonFixture.with(
            mockOptions: Self.lossyAdvertisers + " --emit-log \(emitLog.path)", arguments: ["--log-level", "info"]
        ) { fixture in
            let countered = (1...5).map { "A4:C1:38:AD:00:0\($0)" }
            let govee = "A4:C1:38:AD:00:06"
            // Until the sensors with a counter have 1,500 measurements sent between them.
            var sensors: [String: [String: Any]] = [:]
            let deadline = ContinuousClock.now + .seconds(90)
            func sent(_ sensor: [String: Any]?) -> Int {
                (sensor?["received_last_hour"] as? Int ?? 0) + (sensor?["missed_last_hour"] as? Int ?? 0)
            }
            repeat {
                try await Task.sleep(for: .seconds(1))
                sensors = try await Self.receptionSensors(fixture)
            } while countered.map({ sent(sensors[$0]) }).reduce(0, +) < 1500 && ContinuousClock.now < deadline
            var received = 0
            var missed = 0
            for address in countered {
                let sensor = try #require(sensors[address], "\(address) not in status: \(sensors.keys)")
                #expect(sensor["counted_by"] as? String == "counter", "\(address)")
                let hourReceived = try #require(sensor["received_last_hour"] as? Int)
                let hourMissed = try #require(sensor["missed_last_hour"] as? Int)
                received += hourReceived
                missed += hourMissed
                let ratio = try #require(sensor["ratio_last_hour"] as? Double, "\(address): \(sensor)")
                print(
                    "reception: \(address) \(sensor["profile"] ?? "?") ratio \(ratio) (\(hourReceived) of "
                        + "\(hourReceived + hourMissed))")
                // Each sensor alone: about 300 draws (σ 0.026), so a wider bound.
                #expect(abs(ratio - 0.7) <= 0.12, "\(address): \(sensor)")
                #expect((sensor["received"] as? Int ?? 0) >= hourReceived, "\(address)")
                #expect(sensor["last_heard"] is String && sensor["interval"] is Double, "\(address): \(sensor)")
            }
            let ratio = Double(received) / Double(received + missed)
            print("reception: sensors with a counter together \(ratio) (\(received) of \(received + missed))")
            #expect(abs(ratio - 0.7) <= 0.05, "\(received) received, \(missed) missed")
            // Govee has no counter: its misses come from its learned interval (100 ms).
            let goveeSensor = try #require(sensors[govee])
            #expect(goveeSensor["counted_by"] as? String == "interval")
            let goveeRatio = try #require(goveeSensor["ratio_last_hour"] as? Double, "\(goveeSensor)")
            print("reception: \(govee) govee-h5075 ratio \(goveeRatio) by interval \(goveeSensor["interval"] ?? "?")")
            #expect(abs(goveeRatio - 0.7) <= 0.12, "\(goveeSensor)")
            // The text shows the figures per sensor.
            let text = try await fixture.blectl(["status"])
            #expect(text.output.contains("LAST HOUR") && text.output.contains("(by counter)"), "\(text.output)")
            #expect(text.output.contains("(by interval)") && text.output.contains("% received"), "\(text.output)")
            // The controller goes silent: nothing more is sent or heard, and the counts stand still.
            try await fixture.inject("silence", [("cure", .string("controller-reset"))])
            try await Task.sleep(for: .seconds(1))
            final = try await Self.receptionSensors(fixture)
        }
        // Against the mock's own record of what was heard (written as it stops): every report
        // heard is one received, and received + missed is every counter value the sensor went
        // through, exactly.
        #expect(await eventually(within: .seconds(10)) { ((try? Data(contentsOf: emitLog))?.count ?? 0) > 16 })
        let data = [UInt8](try Data(contentsOf: emitLog))
        var heard: [Int: [UInt32]] = [:]
        for offset in stride(from: 16, to: data.count - 15, by: 16) {
            let word = { (at: Int) in (0..<4).reduce(UInt32(0)) { $0 | UInt32(data[offset + at + $1]) << (8 * $1) } }
            heard[Int(word(0) & 0x7FFF_FFFF), default: []].append(word(4))
        }
        for index in 0..<5 {
            let address = "A4:C1:38:AD:00:0\(index + 1)"
            let counters = try #require(heard[index], "\(address) in the emit log")
            let sensor = try #require(final[address])
            let sent = Int(counters.last! - counters.first!) + 1
            print(
                "reception: \(address) heard \(counters.count) of \(sent) by the mock; blectld: \(sensor["received"] ?? "?") "
                    + "received, \(sensor["missed"] ?? "?") missed")
            #expect(sensor["received"] as? Int == counters.count, "\(address): \(sensor)")
            #expect(sensor["missed"] as? Int == sent - counters.count, "\(address): \(sensor)")
        }
    }

    @Test("no advertisement lost: nothing counted missed, the ratio is 1")
    func receptionWithoutLoss() async throws {
        try await DaemonFixture.with(mockOptions: Self.advertiserOptions, arguments: ["--log-level", "info"]) {
            fixture in
            _ = try await Self.readAll(fixture, count: 5)
            try await Task.sleep(for: .seconds(3))
            let sensors = try await Self.receptionSensors(fixture)
            // The encrypted sensor has no key here (reading errors): nothing counted.
            for address in ["A4:C1:38:AD:00:01", "A4:C1:38:AD:00:03", "A4:C1:38:AD:00:04", "A4:C1:38:AD:00:05"] {
                let sensor = try #require(sensors[address])
                #expect(sensor["missed"] as? Int == 0, "\(address): \(sensor)")
                #expect(sensor["ratio_last_hour"] as? Double == 1, "\(address): \(sensor)")
            }
        }
    }
}
