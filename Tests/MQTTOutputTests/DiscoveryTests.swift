import Foundation
@testable import MQTTOutput
import SensorModel
import Testing

/// The entity ids the discovery configs ask Home Assistant for (docs/mqtt.md, issue 38).
@Suite struct DiscoveryTests {
    static let gateways = [
        "kitchen", "Kitchen", "kitchen-pi", "kitchen_pi", "Kitchen-Pi", "küche", "k_che", "gw1", "-",
    ]
    static let addresses = ["DC:A6:32:00:00:01", "DC:A6:32:00:00:02", "A4:C1:38:AD:00:01"]

    static func builder(gateway: String) throws -> DiscoveryBuilder {
        let configuration = MQTTOutput.Configuration(broker: try BrokerURL(parsing: "mqtt://broker"), gateway: gateway)
        let topics = Topics(prefix: "blectl", discoveryPrefix: "homeassistant", gateway: gateway)
        return DiscoveryBuilder(topics: topics, configuration: configuration, sensors: SensorCatalog([]))
    }

    static func device(_ address: String, name: String = "Thermometer") -> KnownDevice {
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
            ])
        // The hash is part of the id: a new hash would give every such gateway a new entity.
        #expect(ids(renamed) == ["binary_sensor.blectl_kitchen_pi_5ade2e11_connectivity"] + ids(first).dropFirst())
        #expect(EntityID.slug("küche") == "k_che_e34b7ca1")
        #expect(EntityID.slug("-") == "280c9438", "nothing but the hash")
    }
}
