import Foundation
import TestSupport
import Testing

/// Advertising sensors through MQTT: one config per quantity, with Home Assistant's device classes.
extension MQTTTests {
    @Test("advertising sensors: humidity, battery, pressure and voltage configs with their device classes")
    func advertisingSensorConfigs() async throws {
        try await MQTTBroker.with { broker in
            try await DaemonFixture.with(
                mockOptions: "--fast --thermometers 0 --others 0 --advertisers 5 --advertiser-interval 200ms",
                arguments: Self.arguments(broker), configuration: CLITests.advertiserConfiguration
            ) { fixture in
                try await fixture.waitForMQTT { $0["state"] as? String == "connected" }
                let subscriber = try MQTTSubscriber(broker, topic: "homeassistant/#")
                defer { Task { await subscriber.stop() } }
                let ruuvi = "homeassistant/sensor/blectl_a4c138ad0005/"
                let pvvx = "homeassistant/sensor/blectl_a4c138ad0003/"
                try await subscriber.wait("the Ruuvi's and the pvvx's configs") { messages in
                    Set(messages.map(\.topic)).isSuperset(of: [
                        ruuvi + "temperature/config", ruuvi + "humidity/config", ruuvi + "pressure/config",
                        ruuvi + "voltage/config", pvvx + "battery/config",
                    ])
                }
                let expected: [(String, String, String, String)] = [
                    (ruuvi + "humidity/config", "humidity", "%", "{{ value_json.humidity }}"),
                    (ruuvi + "pressure/config", "atmospheric_pressure", "hPa", "{{ value_json.pressure }}"),
                    (ruuvi + "voltage/config", "voltage", "V", "{{ value_json.voltage }}"),
                    (pvvx + "battery/config", "battery", "%", "{{ value_json.battery }}"),
                ]
                for (topic, deviceClass, unit, template) in expected {
                    let object = try #require(subscriber.on(topic).last?.json, "\(topic)")
                    #expect(object["device_class"] as? String == deviceClass, "\(topic)")
                    #expect(object["unit_of_measurement"] as? String == unit, "\(topic)")
                    #expect(object["value_template"] as? String == template, "\(topic)")
                }
                let device = try #require(
                    subscriber.on(pvvx + "battery/config").last?.json?["device"] as? [String: Any])
                #expect(device["name"] as? String == "Greenhouse")
                #expect(device["model"] as? String == "LYWSD03MMC / MHO-C401 / CGG1 / CGDK2")
                #expect(device["manufacturer"] as? String == "Xiaomi (custom firmware)")
                // A Ruuvi has no battery percentage: no battery config.
                #expect(subscriber.on(ruuvi + "battery/config").isEmpty)
            }
        }
    }

    @Test(
        "a meat thermometer through MQTT: a temperature entity per probe, each probe's readings on its own state topic")
    func probeEntities() async throws {
        try await MQTTBroker.with { broker in
            try await DaemonFixture.with(
                mockOptions: "--fast --thermometers 0 --others 0 --advertisers 1 --advertiser-formats govee-meat "
                    + "--advertiser-interval 200ms",
                arguments: Self.arguments(broker)
            ) { fixture in
                try await fixture.waitForMQTT { $0["state"] as? String == "connected" }
                let subscriber = try MQTTSubscriber(broker, topic: "#")
                defer { Task { await subscriber.stop() } }
                let node = "homeassistant/sensor/blectl_a4c138ad0001/"
                let probes = (1...4).map { "blectl/a4c138ad0001/probe\($0)/state" }
                try await subscriber.wait("four probe configs and states") { messages in
                    Set(messages.map(\.topic)).isSuperset(
                        of: (1...4).map { node + "temperature_probe_\($0)/config" } + probes)
                }
                for (index, topic) in probes.enumerated() {
                    let state = try #require(subscriber.on(topic).last?.json, "\(topic)")
                    #expect(state["probe"] as? Int == index + 1, "\(state)")
                    #expect(state["profile"] as? String == "govee-meat")
                    let config = try #require(subscriber.on(node + "temperature_probe_\(index + 1)/config").last?.json)
                    #expect(config["state_topic"] as? String == topic)
                    #expect(config["unique_id"] as? String == "blectl_a4c138ad0001_temperature_probe_\(index + 1)")
                }
                // Every reading had a probe: no device-wide temperature entity, nothing on …/state.
                #expect(subscriber.on(node + "temperature/config").isEmpty)
                #expect(subscriber.on("blectl/a4c138ad0001/state").isEmpty)
            }
        }
    }

    @Test("an advertising sensor's reception: a diagnostic Reception config and retained counts on …/reception")
    func receptionEntity() async throws {
        try await MQTTBroker.with { broker in
            try await DaemonFixture.with(
                mockOptions: "--fast --thermometers 1 --others 0 --advertisers 3 --advertiser-interval 200ms",
                arguments: Self.arguments(broker), configuration: CLITests.advertiserConfiguration
            ) { fixture in
                try await fixture.waitForMQTT { $0["state"] as? String == "connected" }
                let subscriber = try MQTTSubscriber(broker, topic: "#")
                defer { Task { await subscriber.stop() } }
                let config = "homeassistant/sensor/blectl_a4c138ad0001/reception/config"
                let state = "blectl/a4c138ad0001/reception"
                try await subscriber.wait("the BTHome sensor's reception config and counts") { messages in
                    Set(messages.map(\.topic)).isSuperset(of: [config, state])
                }
                let object = try #require(subscriber.on(config).last?.json)
                #expect(object["entity_category"] as? String == "diagnostic")
                #expect(object["unit_of_measurement"] as? String == "%")
                #expect(object["state_topic"] as? String == state)
                #expect(object["value_template"] as? String == "{{ value_json.percent_last_hour }}")
                let counts = try #require(subscriber.on(state).last?.json)
                #expect(counts["counted_by"] as? String == "counter")
                #expect((counts["percent_last_hour"] as? Double).map { (0...100).contains($0) } == true, "\(counts)")
                #expect(counts["received"] is Int && counts["gateway"] is String, "\(counts)")
                // A GATT thermometer has no reception: no config, no counts.
                let pi = try await fixture.blectl(["read", "--json", "--timeout", "10", "DC:A6:32:00:00:01"])
                #expect(pi.status == 0)
                #expect(subscriber.on("homeassistant/sensor/blectl_dca632000001/reception/config").isEmpty)
                #expect(subscriber.on("blectl/dca632000001/reception").isEmpty)
            }
        }
    }
}
