import Foundation
import TestSupport
import Testing

/// A LYWSD03MMC with Xiaomi's stock firmware (`blectl-mock --stock-memory-sensors`): heard
/// live by its plain MiBeacon frames, its hourly records read over ebe0ccb0
/// (docs/sensor-memory.md, "Xiaomi stock firmware").
@Suite("stock-firmware memory: a LYWSD03MMC's hourly records fill the history")
struct StockSensorMemoryTests {
    static let sensor = "A4:C1:38:EF:00:01"
    /// One stock sensor, 12 hourly records, its clock 5 minutes behind.
    static let mockOptions =
        "--fast --notify-interval 200ms --stock-memory-sensors 1 --memory-preload 12 --clock-drift -300 "
        + "--memory-pace 5ms"

    static func object(_ text: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
    }

    /// The minute and second of a history CSV row's time (`…THH:MM:SS…`), in seconds.
    static func secondsPastHour(_ row: Substring) -> Int? {
        let cells = row.split(separator: ",", omittingEmptySubsequences: false)
        guard cells.count > 1, let t = cells[1].firstIndex(of: "T") else { return nil }
        let clock = cells[1][cells[1].index(after: t)...].prefix(8).split(separator: ":")
        guard clock.count == 3, let minute = Int(clock[1]), let second = Int(clock[2].prefix(2)) else { return nil }
        return minute * 60 + second
    }

    @Test("the records before blectld started are stored once, as memory, at the sensor's hours on the gateway's clock")
    func fillsTheHistory() async throws {
        try await DaemonFixture.with(mockOptions: Self.mockOptions) { fixture in
            var reply: (status: Int32, output: String, errors: String) = (68, "", "")
            _ = await eventually(within: .seconds(30)) {
                reply = (try? await fixture.blectl(["memory", Self.sensor, "--json"])) ?? (1, "", "")
                return reply.status != 68
            }
            #expect(reply.status == 0, "\(reply.errors)")
            let first = try #require(Self.object(reply.output), "\(reply.output)")
            #expect(first["last_result"] as? String == "finished", "\(first)")
            // 12 records (13 if an hour passed); one whose minute has a live reading (the
            // sensor's hour passing during the test) is a duplicate.
            let stored = first["stored"] as? Int ?? 0
            #expect(stored >= 11 && (12...13).contains(stored + (first["duplicates"] as? Int ?? 0)), "\(first)")
            #expect(first["rejected"] as? Int == 0, "\(first)")
            #expect(abs((first["clock_drift_seconds"] as? Int ?? 0) + 300) <= 2, "\(first)")

            let history = try await fixture.blectl(["history", Self.sensor, "--since", "1d", "--csv"])
            let memory = history.output.split(separator: "\n").filter { $0.hasSuffix(",memory") }
            #expect(memory.count == stored, "\(history.output)")
            // Stamped at the sensor's whole hours, 5 minutes behind: 5 past the hour here.
            for row in memory {
                let past = Self.secondsPastHour(row) ?? -1
                #expect(abs(past - 300) <= 2, "\(row)")
                #expect(row.contains(",mibeacon,"), "\(row)")
            }

            // Again: nothing new, every record a duplicate.
            let again = try await fixture.blectl(["memory", Self.sensor, "--json"])
            let second = try #require(Self.object(again.output), "\(again.output)")
            #expect(second["stored"] as? Int == 0, "\(second)")
            #expect((second["duplicates"] as? Int ?? 0) >= 1, "\(second)")
            let after = try await fixture.blectl(["history", Self.sensor, "--since", "1d", "--csv"])
            #expect(after.output.split(separator: "\n").filter { $0.hasSuffix(",memory") }.count == stored)
        }
    }

    @Test("sensor_memory ADDRESS = off leaves that sensor alone; = auto reads it when sensor_memory = off")
    func perDevice() async throws {
        let off = "sensor_memory \(Self.sensor) = off\n"
        try await DaemonFixture.with(mockOptions: Self.mockOptions, configuration: off) { fixture in
            var asked: (status: Int32, output: String, errors: String) = (0, "", "")
            _ = await eventually(within: .seconds(30)) {
                asked = (try? await fixture.blectl(["memory", Self.sensor])) ?? (1, "", "")
                return asked.status != 68
            }
            #expect(asked.status == 3 && asked.errors.contains("sensor_memory \(Self.sensor) = off"), "\(asked)")
            let history = try await fixture.blectl(["history", Self.sensor, "--since", "1d", "--csv"])
            #expect(!history.output.contains(",memory"), "\(history.output)")
        }
        let only = "sensor_memory = off\nsensor_memory \(Self.sensor) = auto\n"
        try await DaemonFixture.with(mockOptions: Self.mockOptions, configuration: only) { fixture in
            var reply: (status: Int32, output: String, errors: String) = (68, "", "")
            _ = await eventually(within: .seconds(30)) {
                reply = (try? await fixture.blectl(["memory", Self.sensor, "--json"])) ?? (1, "", "")
                return reply.status != 68
            }
            #expect(reply.status == 0, "\(reply.errors)")
            #expect((Self.object(reply.output)?["stored"] as? Int ?? 0) >= 11, "\(reply.output)")
        }
    }

    @Test("MQTT: the records go to blectl/<device_id>/memory, never to the state topic")
    func mqtt() async throws {
        try await MQTTBroker.with { broker in
            let arguments = ["--log-level", "debug", "--mqtt", broker.url, "--mqtt-gateway", "gw1"]
            try await DaemonFixture.with(mockOptions: Self.mockOptions, arguments: arguments) { fixture in
                try await fixture.waitForMQTT { $0["state"] as? String == "connected" }
                let subscriber = try MQTTSubscriber(broker, topic: "blectl/a4c138ef0001/#")
                defer { Task { await subscriber.stop() } }
                try await subscriber.wait("the sensor's live state") { messages in
                    messages.contains { $0.topic == "blectl/a4c138ef0001/state" }
                }
                var reply: (status: Int32, output: String, errors: String) = (68, "", "")
                _ = await eventually(within: .seconds(30)) {
                    reply = (try? await fixture.blectl(["memory", Self.sensor, "--json"])) ?? (1, "", "")
                    return reply.status != 68
                }
                let stored = try #require(Self.object(reply.output)?["stored"] as? Int, "\(reply)")
                #expect(stored >= 11)
                try await subscriber.wait("every stored record on the memory topic") { messages in
                    messages.filter { $0.topic == "blectl/a4c138ef0001/memory" }.count >= stored
                }
                let memory = subscriber.on("blectl/a4c138ef0001/memory")
                #expect(memory.count == stored)
                for message in memory {
                    let object = try #require(message.json, "\(message.payload)")
                    #expect(!message.retained)
                    #expect(object["address"] as? String == Self.sensor)
                    #expect(object["source"] as? String == "memory", "\(message.payload)")
                    let time = try #require(object["time"] as? String)
                    let date = try #require(ISO8601DateFormatter.withFractions.date(from: time), "\(time)")
                    #expect(date.timeIntervalSinceNow < -60, "a record of an hour past: \(time)")
                }
                // The state stays live: recent readings only, none from memory.
                for message in subscriber.on("blectl/a4c138ef0001/state") {
                    let object = try #require(message.json)
                    #expect(object["source"] as? String != "memory", "\(message.payload)")
                    let time = try #require(object["time"] as? String)
                    let date = try #require(ISO8601DateFormatter.withFractions.date(from: time))
                    #expect(abs(date.timeIntervalSinceNow) < 120, "a live reading: \(time)")
                }
            }
        }
    }
}
