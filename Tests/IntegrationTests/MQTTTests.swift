import Foundation
import TestSupport
import Testing

/// blectld --mock publishing to a real mosquitto broker (docs/mqtt.md).
@Suite("MQTT and Home Assistant", .serialized)
struct MQTTTests {
    static let first = "DC:A6:32:00:00:01"
    static let second = "DC:A6:32:00:00:02"

    static func arguments(_ broker: MQTTBroker, gateway: String = "gw1", _ extra: [String] = []) -> [String] {
        ["--log-level", "debug", "--mqtt", broker.url, "--mqtt-gateway", gateway] + extra
    }

    @Test("Topics and payloads: state, the gateway's status, discovery configs (every field)")
    func goldenTopicsAndPayloads() async throws {
        try await MQTTBroker.with { broker in
            try await DaemonFixture.with(arguments: Self.arguments(broker)) { fixture in
                try await fixture.waitForMQTT { $0["state"] as? String == "connected" }
                // Subscribed after blectld connected: the status and the configs come retained.
                let subscriber = try MQTTSubscriber(broker)
                defer { Task { await subscriber.stop() } }
                try await subscriber.wait("readings of both thermometers and their configs") { messages in
                    let topics = Set(messages.map(\.topic))
                    return topics.isSuperset(of: [
                        "blectl/dca632000001/state", "blectl/dca632000002/state",
                        "homeassistant/sensor/blectl_dca632000001/temperature/config",
                        "homeassistant/sensor/blectl_dca632000002/temperature/config",
                    ])
                }
                let status = try #require(subscriber.on("blectl/gateways/gw1/status").last)
                #expect(status.payload == "online" && status.retained)
                try Self.checkState(try #require(subscriber.on("blectl/dca632000001/state").last), Self.first)
                try Self.checkState(try #require(subscriber.on("blectl/dca632000002/state").last), Self.second)
                // The configs are retained: a subscriber that comes later gets them at once.
                let late = try MQTTSubscriber(broker, topic: "homeassistant/#")
                defer { Task { await late.stop() } }
                try await late.wait("the retained configs") { $0.filter(\.retained).count >= 3 }
                for address in [Self.first, Self.second] {
                    let id = address.lowercased().replacingOccurrences(of: ":", with: "")
                    let config = try #require(late.on("homeassistant/sensor/blectl_\(id)/temperature/config").last)
                    try Self.checkSensorConfig(config, address: address)
                }
                let gateway = try #require(
                    subscriber.on("homeassistant/binary_sensor/blectl_gw1/connectivity/config").last)
                let object = try #require(gateway.json)
                #expect(gateway.retained)
                #expect(object["device_class"] as? String == "connectivity")
                #expect(object["state_topic"] as? String == "blectl/gateways/gw1/status")
                #expect(object["payload_on"] as? String == "online" && object["payload_off"] as? String == "offline")
                #expect(object["unique_id"] as? String == "blectl_gw1_connectivity")
                #expect(object["default_entity_id"] as? String == "binary_sensor.blectl_gw1_connectivity")
                #expect(object["object_id"] as? String == "blectl_gw1_connectivity")
                let device = try #require(object["device"] as? [String: Any])
                #expect(device["identifiers"] as? [String] == ["blectl_gateway_gw1"])
                let mqtt = try await fixture.mqttStatus()
                #expect(mqtt["broker"] as? String == broker.url + "")
                #expect(mqtt["gateway"] as? String == "gw1" && mqtt["client_id"] as? String == "blectl-gw1")
                #expect(mqtt["backlog"] is NSNumber && mqtt["acked_seq"] is NSNumber)
                let text = try await fixture.blectl(["status"]).output
                #expect(text.contains("MQTT:") && text.contains("connected to \(broker.url) as gw1"), "\(text)")
            }
        }
    }

    static func checkState(_ message: MQTTMessage, _ address: String) throws {
        let object = try #require(message.json)
        #expect(!message.retained)
        #expect(object["address"] as? String == address)
        #expect(object["name"] as? String == "Thermometer")
        #expect(object["celsius"] is NSNumber)
        #expect(object["raw"] is String && ["C", "F"].contains(object["unit"] as? String))
        #expect(object["seq"] is NSNumber)
        #expect(object["gateway"] as? String == "gw1")
        #expect(object["rssi"] is NSNumber, "the mock advertises an RSSI")
        let time = try #require(object["time"] as? String)
        let parsed = try #require(ISO8601DateFormatter.withFractions.date(from: time), "\(time) is RFC 3339")
        #expect(abs(parsed.timeIntervalSinceNow) < 120)
    }

    static func checkSensorConfig(_ message: MQTTMessage, address: String) throws {
        let id = address.lowercased().replacingOccurrences(of: ":", with: "")
        let object = try #require(message.json)
        #expect(message.retained)
        #expect(object["name"] as? String == "Temperature")
        #expect(object["unique_id"] as? String == "blectl_\(id)_temperature")
        #expect(object["default_entity_id"] as? String == "sensor.blectl_\(id)_temperature")
        #expect(object["object_id"] as? String == "blectl_\(id)_temperature")
        #expect(object["state_topic"] as? String == "blectl/\(id)/state")
        #expect(object["value_template"] as? String == "{{ value_json.celsius }}")
        #expect(object["device_class"] as? String == "temperature")
        #expect(object["unit_of_measurement"] as? String == "°C")
        #expect(object["state_class"] as? String == "measurement")
        #expect(((object["expire_after"] as? NSNumber)?.intValue ?? 0) >= 60)
        let device = try #require(object["device"] as? [String: Any])
        #expect(device["identifiers"] as? [String] == ["blectl_\(id)"])
        #expect(device["connections"] as? [[String]] == [["mac", address]])
        #expect(device["name"] as? String == "Thermometer")
        #expect(device["model"] as? String == "cputemp peripheral")
        #expect(device["manufacturer"] as? String == "Raspberry Pi")
        #expect(device["via_device"] as? String == "blectl_gateway_gw1")
    }

    @Test("kill -9: the broker publishes the will, offline")
    func will() async throws {
        try await MQTTBroker.with { broker in
            let subscriber = try MQTTSubscriber(broker, topic: "blectl/gateways/+/status")
            defer { Task { await subscriber.stop() } }
            try await DaemonFixture.with(arguments: Self.arguments(broker)) { fixture in
                try await subscriber.wait("online") { $0.last?.payload == "online" }
                fixture.daemon.signal(SIGKILL)
                try await subscriber.wait("the will") { $0.last?.payload == "offline" }
                #expect(subscriber.received.last?.topic == "blectl/gateways/gw1/status")
            }
        }
    }

    @Test("homeassistant/status online: discovery is published again")
    func homeAssistantRestart() async throws {
        try await MQTTBroker.with { broker in
            let subscriber = try MQTTSubscriber(broker, topic: "homeassistant/#")
            defer { Task { await subscriber.stop() } }
            try await DaemonFixture.with(arguments: Self.arguments(broker)) { fixture in
                let topic = "homeassistant/sensor/blectl_dca632000001/temperature/config"
                try await subscriber.wait("the first config") { !$0.filter { $0.topic == topic }.isEmpty }
                let before = subscriber.on(topic).count
                let gatewayBefore = subscriber.on("homeassistant/binary_sensor/blectl_gw1/connectivity/config").count
                try await mqttPublish(broker, topic: "homeassistant/status", message: "online")
                try await subscriber.wait("the configs again") { messages in
                    messages.filter { $0.topic == topic }.count > before
                        && messages.filter { $0.topic.hasPrefix("homeassistant/binary_sensor/") }.count > gatewayBefore
                }
                #expect(fixture.daemon.log().contains("Home Assistant is online"))
            }
        }
    }

    @Test("Two gateways, one broker: the same device topics and one discovery config per sensor")
    func twoGateways() async throws {
        try await MQTTBroker.with { broker in
            let subscriber = try MQTTSubscriber(broker)
            defer { Task { await subscriber.stop() } }
            try await DaemonFixture.with(arguments: Self.arguments(broker, gateway: "kitchen")) { _ in
                try await DaemonFixture.with(arguments: Self.arguments(broker, gateway: "garage")) { _ in
                    try await subscriber.wait("readings of both thermometers from both gateways") { messages in
                        ["blectl/dca632000001/state", "blectl/dca632000002/state"].allSatisfy { topic in
                            Set(messages.filter { $0.topic == topic }.compactMap { $0.json?["gateway"] as? String })
                                == ["kitchen", "garage"]
                        }
                    }
                }
            }
            let configTopics = Set(subscriber.received.map(\.topic).filter { $0.hasPrefix("homeassistant/sensor/") })
            #expect(
                configTopics == [
                    "homeassistant/sensor/blectl_dca632000001/temperature/config",
                    "homeassistant/sensor/blectl_dca632000002/temperature/config",
                ])
            let ids = Set(
                subscriber.received.filter { configTopics.contains($0.topic) }.compactMap {
                    $0.json?["unique_id"] as? String
                })
            #expect(ids == ["blectl_dca632000001_temperature", "blectl_dca632000002_temperature"])
            let gateways = Set(
                subscriber.received.map(\.topic).filter { $0.hasSuffix("/status") && $0.contains("gateways") })
            #expect(gateways == ["blectl/gateways/kitchen/status", "blectl/gateways/garage/status"])
        }
    }
}

extension ISO8601DateFormatter {
    nonisolated(unsafe) static let withFractions: ISO8601DateFormatter = {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }()
}

extension DaemonFixture {
    /// The `mqtt` object of `blectl status --json`.
    func mqttStatus() async throws -> [String: Any] {
        let status = try await blectl(["status", "--json"])
        guard let object = ChildProcessLines.parse(status.output), let mqtt = object["mqtt"] as? [String: Any] else {
            throw TestSupportError("no mqtt in status: \(status.output) \(status.errors)")
        }
        return mqtt
    }

    /// Waits until the `mqtt` status satisfies `condition`.
    func waitForMQTT(within timeout: Duration = .seconds(30), _ condition: @escaping ([String: Any]) -> Bool)
        async throws
    {
        let deadline = ContinuousClock.now + timeout
        var last: [String: Any] = [:]
        while ContinuousClock.now < deadline {
            last = (try? await mqttStatus()) ?? [:]
            if condition(last) { return }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestSupportError("the MQTT status did not become as expected: \(last)")
    }
}
