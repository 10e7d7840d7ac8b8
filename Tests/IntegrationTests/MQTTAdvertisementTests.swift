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
}
