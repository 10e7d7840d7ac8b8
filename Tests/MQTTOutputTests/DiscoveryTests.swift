import BlectlProtocol
import Foundation
@testable import MQTTOutput
import SensorModel
import Testing

/// The entity ids the discovery configs ask Home Assistant for (docs/mqtt.md, issue 38).
@Suite struct DiscoveryTests {
    static let gateways = [
        "kitchen", "Kitchen", "kitchen-pi", "kitchen_pi", "Kitchen-Pi", "küche", "k_che", "gw1", "-",
    ]
    static let addresses: [BluetoothAddress] = ["DC:A6:32:00:00:01", "DC:A6:32:00:00:02", "A4:C1:38:AD:00:01"]

    static func builder(gateway: String) throws -> DiscoveryBuilder {
        let configuration = MQTTOutput.Configuration(broker: try BrokerURL(parsing: "mqtt://broker"), gateway: gateway)
        let topics = Topics(prefix: "blectl", discoveryPrefix: "homeassistant", gateway: gateway)
        return DiscoveryBuilder(topics: topics, configuration: configuration, sensors: SensorCatalog([]))
    }

    static func device(_ address: BluetoothAddress, name: String = "Thermometer") -> KnownDevice {
        var device = KnownDevice(address: address, profile: "bthome")
        device.name = name
        device.quantities = Set(Quantity.allCases)
        return device
    }

    /// Every config a gateway publishes for the devices given: (topic, decoded payload).
    static func configs(gateway: String, devices: [KnownDevice]) throws -> [(topic: String, object: [String: Any])] {
        let builder = try builder(gateway: gateway)
        return try ([builder.gatewayConfig()] + devices.flatMap(builder.deviceConfigs)).map { config in
            let object = try JSONSerialization.jsonObject(with: Data(config.payload)) as? [String: Any]
            return (config.topic, try #require(object))
        }
    }

    @Test("default_entity_id on every config: the topic's domain, lower case, object_id beside it, unique")
    func everyConfig() throws {
        var seen: [String: String] = [:]
        for gateway in Self.gateways {
            for (topic, object) in try Self.configs(gateway: gateway, devices: Self.addresses.map { Self.device($0) }) {
                let id = try #require(object["default_entity_id"] as? String, "\(topic)")
                let objectID = try #require(object["object_id"] as? String, "\(topic)")
                let domain = topic.split(separator: "/")[1]
                #expect(id == "\(domain).\(objectID)", "\(topic)")
                // What Home Assistant's slugify leaves as it is: it would rewrite anything else.
                #expect(objectID.wholeMatch(of: /[a-z0-9]+(_[a-z0-9]+)*/) != nil, "\(topic): \(objectID)")
                // One entity per id: device configs repeat across gateways (the same entity).
                let uniqueID = try #require(object["unique_id"] as? String)
                #expect(seen.updateValue(uniqueID, forKey: id).map { $0 == uniqueID } ?? true, "\(id) for two entities")
            }
        }
        #expect(seen.count == Self.gateways.count + Self.addresses.count * Quantity.allCases.count)
    }

    @Test("Entity ids come from the address and the gateway name: not from device names, the same every run")
    func stable() throws {
        let first = try Self.configs(gateway: "kitchen", devices: [Self.device(Self.addresses[0], name: "Thermometer")])
        let renamed = try Self.configs(gateway: "Kitchen-Pi", devices: [Self.device(Self.addresses[0], name: "Attic")])
        let ids = { (configs: [(topic: String, object: [String: Any])]) in
            configs.map { $0.object["default_entity_id"] as? String ?? "" }
        }
        #expect(
            ids(first) == [
                "binary_sensor.blectl_kitchen_connectivity", "sensor.blectl_dca632000001_temperature",
                "sensor.blectl_dca632000001_humidity", "sensor.blectl_dca632000001_battery",
                "sensor.blectl_dca632000001_pressure", "sensor.blectl_dca632000001_voltage",
                "sensor.blectl_dca632000001_co2", "sensor.blectl_dca632000001_dew_point",
            ])
        // The hash is part of the id: a new hash would give every such gateway a new entity.
        #expect(ids(renamed) == ["binary_sensor.blectl_kitchen_pi_5ade2e11_connectivity"] + ids(first).dropFirst())
        #expect(EntityID.slug("küche") == "k_che_e34b7ca1")
        #expect(EntityID.slug("-") == "280c9438", "nothing but the hash")
    }

    @Test("an advertising sensor whose reception is counted has a diagnostic Reception entity in %; others have none")
    func reception() throws {
        var sensor = Self.device(Self.addresses[2])
        sensor.countsReception = true
        let configs = try Self.configs(gateway: "kitchen", devices: [Self.device(Self.addresses[0]), sensor])
        let receptions = configs.filter { $0.topic.hasSuffix("/reception/config") }
        try #require(receptions.count == 1)
        let (topic, object) = receptions[0]
        #expect(topic == "homeassistant/sensor/blectl_a4c138ad0001/reception/config")
        #expect(object["default_entity_id"] as? String == "sensor.blectl_a4c138ad0001_reception")
        #expect(object["unique_id"] as? String == "blectl_a4c138ad0001_reception")
        #expect(object["entity_category"] as? String == "diagnostic")
        #expect(object["unit_of_measurement"] as? String == "%")
        #expect(object["state_class"] as? String == "measurement")
        #expect(object["device_class"] == nil)
        #expect(object["state_topic"] as? String == "blectl/a4c138ad0001/reception")
        #expect(object["value_template"] as? String == "{{ value_json.percent_last_hour }}")
        #expect((object["expire_after"] as? Int ?? 0) >= 180)
        // The same device block as its measurements: one device in Home Assistant.
        let device = try #require(object["device"] as? [String: Any])
        #expect(device["identifiers"] as? [String] == ["blectl_a4c138ad0001"])
    }

    @Test("carbon dioxide and the dew point: Home Assistant's device classes and units, the payload's keys")
    func co2AndDewPoint() throws {
        let configs = try Self.configs(gateway: "kitchen", devices: [Self.device(Self.addresses[0])])
        let byObject = Dictionary(
            uniqueKeysWithValues: configs.map { (String($0.topic.split(separator: "/")[3]), $0.object) })
        let co2 = try #require(byObject["co2"])
        #expect(co2["device_class"] as? String == "carbon_dioxide")
        #expect(co2["unit_of_measurement"] as? String == "ppm")
        #expect(co2["value_template"] as? String == "{{ value_json.co2 }}")
        #expect(co2["unique_id"] as? String == "blectl_dca632000001_co2")
        let dewPoint = try #require(byObject["dew_point"])
        #expect(dewPoint["device_class"] as? String == "temperature")
        #expect(dewPoint["unit_of_measurement"] as? String == "°C")
        #expect(dewPoint["value_template"] as? String == "{{ value_json.dew_point }}")
        #expect(dewPoint["name"] as? String == "Dew point")
    }

    @Test("a device with several probes: one temperature entity per probe, its unique id and state topic the probe's")
    func probes() throws {
        var device = KnownDevice(address: Self.addresses[2], profile: "govee-meat")
        device.name = "GVH5184_0001"
        func reading(_ probe: UInt8?) -> Reading {
            Reading(
                seq: 1, time: .now(), address: Self.addresses[2], name: "GVH5184_0001",
                measurement: Measurement(
                    profile: "govee-meat", quantities: Quantities([.temperature: 61.5]), raw: "00", probe: probe))
        }
        let first = device.note(reading(1))
        let second = device.note(reading(2))
        let again = device.note(reading(1))
        #expect(first && second)
        #expect(!again, "a probe already known changes nothing")
        let configs = try Self.configs(gateway: "kitchen", devices: [device])
        let probes = configs.filter { $0.topic.contains("_probe_") }
        #expect(
            probes.map(\.topic) == [
                "homeassistant/sensor/blectl_a4c138ad0001/temperature_probe_1/config",
                "homeassistant/sensor/blectl_a4c138ad0001/temperature_probe_2/config",
            ])
        #expect(
            probes.map { $0.object["unique_id"] as? String } == [
                "blectl_a4c138ad0001_temperature_probe_1", "blectl_a4c138ad0001_temperature_probe_2",
            ])
        #expect(
            probes.map { $0.object["state_topic"] as? String } == [
                "blectl/a4c138ad0001/probe1/state", "blectl/a4c138ad0001/probe2/state",
            ])
        #expect(probes.allSatisfy { $0.object["device_class"] as? String == "temperature" })
        #expect(probes.map { $0.object["name"] as? String } == ["Temperature probe 1", "Temperature probe 2"])
        // No device-wide temperature entity: every reading had a probe.
        #expect(!configs.contains { $0.topic.hasSuffix("/temperature/config") })
    }

    @Test(
        "the device's model is its readings' (a decoder that told it apart), else the family's label; a change republishes"
    )
    func model() throws {
        var device = KnownDevice(address: Self.addresses[2], profile: "bthome")
        func reading(model: String?) -> Reading {
            Reading(
                seq: 1, time: .now(), address: Self.addresses[2], name: nil,
                measurement: Measurement(profile: "bthome", quantities: Quantities([.temperature: 20]), raw: "00"),
                model: model, manufacturer: "M")
        }
        let first = device.note(reading(model: nil))
        #expect(first)
        let label = try Self.configs(gateway: "kitchen", devices: [device]).last?.object["device"] as? [String: Any]
        #expect(label?["model"] as? String == "bthome")
        let changed = device.note(reading(model: "LYWSD03MMC"))
        let same = device.note(reading(model: "LYWSD03MMC"))
        #expect(changed, "a new model changes the configs")
        #expect(!same)
        let named = try Self.configs(gateway: "kitchen", devices: [device]).last?.object["device"] as? [String: Any]
        #expect(named?["model"] as? String == "LYWSD03MMC")
    }

    @Test("a probe that reports more than its temperature (a ThermoPro probe's voltage): an entity per quantity")
    func probeQuantities() throws {
        var device = KnownDevice(address: Self.addresses[2], profile: "thermopro-probe")
        func reading(_ probe: UInt8, _ quantities: KeyValuePairs<Quantity, Double>) -> Reading {
            Reading(
                seq: 1, time: .now(), address: Self.addresses[2], name: "TP962R (0001)",
                measurement: Measurement(
                    profile: "thermopro-probe", quantities: Quantities(quantities), raw: "00", probe: probe))
        }
        let changes = [
            device.note(reading(2, [.temperature: 61.5])),
            device.note(reading(1, [.temperature: 61.5, .voltage: 2.9])),
            // A quantity new to a known probe changes the configs; the same ones again do not.
            device.note(reading(2, [.temperature: 61.5, .voltage: 2.8])),
            device.note(reading(1, [.temperature: 60, .voltage: 2.8])),
        ]
        #expect(changes == [true, true, true, false])
        let configs = try Self.configs(gateway: "kitchen", devices: [device]).filter { $0.topic.contains("_probe_") }
        #expect(
            configs.map(\.topic) == [
                "homeassistant/sensor/blectl_a4c138ad0001/temperature_probe_1/config",
                "homeassistant/sensor/blectl_a4c138ad0001/voltage_probe_1/config",
                "homeassistant/sensor/blectl_a4c138ad0001/temperature_probe_2/config",
                "homeassistant/sensor/blectl_a4c138ad0001/voltage_probe_2/config",
            ])
        let voltage = configs[1].object
        #expect(voltage["device_class"] as? String == "voltage" && voltage["unit_of_measurement"] as? String == "V")
        #expect(voltage["value_template"] as? String == "{{ value_json.voltage }}")
        #expect(voltage["state_topic"] as? String == "blectl/a4c138ad0001/probe1/state")
        #expect(voltage["unique_id"] as? String == "blectl_a4c138ad0001_voltage_probe_1")
        #expect(voltage["name"] as? String == "Battery voltage probe 1")
    }

    @Test("the reception payload: status's counts, the ratio as a percentage to 0.1, the gateway")
    func receptionPayload() throws {
        var sensor = AdvertisementStatus.Sensor(
            address: "A4:C1:38:AD:00:01", profile: "bthome", readings: 70, lostPackets: 30, staleAfter: 60, lost: false)
        sensor.setReception(countedBy: "counter", received: 70, missed: 30, receivedLastHour: 2, missedLastHour: 1)
        let bytes = Payload.bytes(ReceptionPayload(sensor: sensor, gateway: "kitchen"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        #expect(object["percent_last_hour"] as? Double == 66.7)
        #expect(object["ratio_last_hour"] as? Double == 0.6667)
        #expect(object["received"] as? Int == 70 && object["missed"] as? Int == 30)
        #expect(object["counted_by"] as? String == "counter" && object["gateway"] as? String == "kitchen")
    }
}
