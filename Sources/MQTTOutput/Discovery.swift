import BlectlProtocol
import SensorModel

/// How Home Assistant describes a quantity: its entity's id, device class and unit.
struct SensorKind: Sendable {
    /// The entity's object id (`temperature`) in topics and `unique_id`.
    let object: String
    /// The `device_class`.
    let deviceClass: String
    /// The `unit_of_measurement`.
    let unit: String
    /// The `name` Home Assistant shows after the device's.
    let name: String
    /// The payload key the value template reads (`celsius`).
    let key: String

    init(_ quantity: Quantity) {
        key = quantity.key
        unit = quantity.symbol
        switch quantity {
        case .temperature: (object, deviceClass, name) = ("temperature", "temperature", "Temperature")
        case .humidity: (object, deviceClass, name) = ("humidity", "humidity", "Humidity")
        case .battery: (object, deviceClass, name) = ("battery", "battery", "Battery")
        case .pressure: (object, deviceClass, name) = ("pressure", "atmospheric_pressure", "Pressure")
        case .voltage: (object, deviceClass, name) = ("voltage", "voltage", "Battery voltage")
        case .co2: (object, deviceClass, name) = ("co2", "carbon_dioxide", "Carbon dioxide")
        case .dewPoint: (object, deviceClass, name) = ("dew_point", "temperature", "Dew point")
        }
    }
}

/// The `device` block of a discovery config.
struct DiscoveryDevice: Encodable, Equatable {
    var identifiers: [String]
    var connections: [[String]]?
    var name: String
    var model: String
    var manufacturer: String
    var viaDevice: String?
    var swVersion: String?

    private enum CodingKeys: String, CodingKey {
        case identifiers, connections, name, model, manufacturer
        case viaDevice = "via_device"
        case swVersion = "sw_version"
    }
}

/// `homeassistant/sensor/blectl_<device_id>/<quantity>/config`, and an advertising sensor's
/// `…/reception/config`: the share of its measurements (or advertisements) received over the
/// last hour, a diagnostic entity (docs/mqtt.md, "Reception").
struct SensorConfig: Encodable {
    var name: String
    var uniqueID: String
    var objectID: String
    var defaultEntityID: String
    var stateTopic: String
    var valueTemplate: String
    /// None for the Reception entity: Home Assistant has no class for it.
    var deviceClass: String?
    var unitOfMeasurement: String
    var stateClass = "measurement"
    var expireAfter: Int?
    /// `diagnostic` for the Reception entity, none for measurements.
    var entityCategory: String? = nil
    var icon: String? = nil
    var device: DiscoveryDevice

    private enum CodingKeys: String, CodingKey {
        case name, device, icon
        case uniqueID = "unique_id"
        case objectID = "object_id"
        case defaultEntityID = "default_entity_id"
        case stateTopic = "state_topic"
        case valueTemplate = "value_template"
        case deviceClass = "device_class"
        case unitOfMeasurement = "unit_of_measurement"
        case stateClass = "state_class"
        case expireAfter = "expire_after"
        case entityCategory = "entity_category"
    }
}

/// `homeassistant/binary_sensor/blectl_<gateway>/connectivity/config`: the gateway's status.
struct ConnectivityConfig: Encodable {
    var name = "Connectivity"
    var uniqueID: String
    var objectID: String
    var defaultEntityID: String
    var stateTopic: String
    var payloadOn = "online"
    var payloadOff = "offline"
    var deviceClass = "connectivity"
    var entityCategory = "diagnostic"
    var device: DiscoveryDevice

    private enum CodingKeys: String, CodingKey {
        case name, device
        case uniqueID = "unique_id"
        case objectID = "object_id"
        case defaultEntityID = "default_entity_id"
        case stateTopic = "state_topic"
        case payloadOn = "payload_on"
        case payloadOff = "payload_off"
        case deviceClass = "device_class"
        case entityCategory = "entity_category"
    }
}

/// The entity id a discovery config asks Home Assistant for: `default_entity_id` (2025.10 on)
/// and `object_id` (before 2025.10, ignored from 2026.4), never derived from a name that can
/// change, so that an entity keeps its id across restarts, renames and gateways.
struct EntityID: Equatable {
    /// Home Assistant's domain: the discovery topic's component (`sensor`, `binary_sensor`).
    let component: String
    /// `blectl_dca632000001_temperature`.
    let object: String

    /// `parts`, each already an id (see `slug`), joined by `_`.
    init(component: String, _ parts: String...) {
        self.component = component
        object = parts.filter { !$0.isEmpty }.joined(separator: "_")
    }

    /// `sensor.blectl_dca632000001_temperature`.
    var full: String { "\(component).\(object)" }

    /// `text` as part of an entity id: as it is when it is already what Home Assistant's
    /// slugify leaves alone (runs of `a-z` and `0-9` joined by single `_`); else its slug
    /// followed by a hash of `text`, since slugs alone collide (`Kitchen`, `kitchen-`, `kitchen`)
    /// and Home Assistant would then number the second entity `_2`, whichever came first.
    static func slug(_ text: String) -> String {
        var slug = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                slug.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): slug.unicodeScalars.append(Unicode.Scalar(byte + 32))
            default: if !slug.isEmpty && !slug.hasSuffix("_") { slug += "_" }
            }
        }
        if slug.hasSuffix("_") { slug.removeLast() }
        guard slug != text else { return slug }
        return EntityID(component: "", slug, hash(text)).object
    }

    /// FNV-1a (32 bits) of `text`'s UTF-8 in 8 hex digits: the same on every gateway and every
    /// run, which Swift's `Hasher` (seeded per process) is not.
    static func hash(_ text: String) -> String {
        let value = text.utf8.reduce(UInt32(2_166_136_261)) { ($0 ^ UInt32($1)) &* 16_777_619 }
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}

/// A device the output has published readings of: what its discovery configs say.
struct KnownDevice: Equatable {
    var address: BluetoothAddress
    var name: String?
    var profile: ProfileID
    /// Its model as its latest reading named it (nil: the family's label).
    var model: String?
    /// The quantities its readings of no probe carried so far.
    var quantities: Set<Quantity> = []
    /// The probes its readings came from so far, on a device with several, with the
    /// quantities each one's readings carried: an entity each (a probe's temperature, and a
    /// ThermoPro probe's battery voltage).
    var probes: [UInt8: Set<Quantity>] = [:]
    /// The estimated time between its readings, once two arrived.
    var interval: Duration?
    var lastReadingTime: Timestamp?
    /// The `expire_after` its configs were last published with (nil: not published yet).
    var announcedExpireAfter: Int??
    /// Whether it is an advertising sensor whose reception is counted (a `status` said so):
    /// its configs then include the diagnostic reception entity.
    var countsReception = false
    /// Whether a `status` was read since its first reading (to learn ``countsReception``).
    var receptionChecked = false

    init(address: BluetoothAddress, profile: ProfileID) {
        self.address = address
        self.profile = profile
    }

    /// Notes a reading; returns whether what the configs say changed: name, profile, a new
    /// quantity or a new probe.
    mutating func note(_ reading: Reading) -> Bool {
        let before = (name, profile, model, quantities, probes)
        if let name = reading.name { self.name = name }
        profile = reading.measurement.profile
        model = reading.model
        if let probe = reading.measurement.probe {
            for quantity in Quantity.allCases where reading.measurement.quantities[quantity] != nil {
                probes[probe, default: []].insert(quantity)
            }
        } else {
            // Not `quantities.present`: that builds an array, for every reading.
            for quantity in Quantity.allCases where reading.measurement.quantities[quantity] != nil {
                quantities.insert(quantity)
            }
        }
        if let last = lastReadingTime, reading.time > last {
            let gap = reading.time.duration(since: last)
            // A slow moving estimate: a missed notification or two do not double it.
            interval = interval.map { $0 * 0.8 + gap * 0.2 } ?? gap
        }
        lastReadingTime = max(lastReadingTime ?? reading.time, reading.time)
        return before != (name, profile, model, quantities, probes)
    }

    /// Whether `expireAfter` differs enough from the announced one (a quarter) to publish again.
    func needsAnnouncing(expireAfter: Int?) -> Bool {
        guard let announced = announcedExpireAfter else { return true }
        guard let announced, let expireAfter else { return announced != expireAfter }
        return abs(expireAfter - announced) * 4 > announced
    }
}

/// The discovery configs of the gateway and its devices.
struct DiscoveryBuilder {
    let topics: Topics
    let configuration: MQTTOutput.Configuration
    /// What each device's family declares: its manufacturer and models.
    let sensors: SensorCatalog

    /// The gateway device's identifier, for `via_device`.
    var gatewayIdentifier: String { "blectl_gateway_\(Topics.identifier(topics.gateway))" }

    /// The gateway's connectivity binary sensor.
    func gatewayConfig() -> (topic: String, payload: [UInt8]) {
        let node = "blectl_\(Topics.identifier(topics.gateway))"
        let device = DiscoveryDevice(
            identifiers: [gatewayIdentifier], name: "blectl gateway \(topics.gateway)", model: "blectld",
            manufacturer: "blectl", swVersion: ProtocolInfo.softwareVersion)
        let entity = EntityID(component: "binary_sensor", "blectl", EntityID.slug(topics.gateway), "connectivity")
        let config = ConnectivityConfig(
            uniqueID: "\(node)_connectivity", objectID: entity.object, defaultEntityID: entity.full,
            stateTopic: topics.gatewayStatus, device: device)
        return (
            topics.discovery(component: entity.component, node: node, object: "connectivity"), Payload.bytes(config)
        )
    }

    /// The config of one quantity of one probe (`temperature_probe_2`), reading the probe's
    /// own state topic.
    private func probeConfig(
        _ device: KnownDevice, probe: UInt8, kind: SensorKind, node: String, block: DiscoveryDevice
    ) -> (topic: String, payload: [UInt8]) {
        let deviceID = Topics.deviceID(device.address)
        let object = "\(kind.object)_probe_\(probe)"
        let entity = EntityID(component: "sensor", "blectl", EntityID.slug(deviceID), object)
        let config = SensorConfig(
            name: "\(kind.name) probe \(probe)", uniqueID: "\(node)_\(object)", objectID: entity.object,
            defaultEntityID: entity.full, stateTopic: topics.state(deviceID, probe: probe),
            valueTemplate: "{{ value_json.\(kind.key) }}", deviceClass: kind.deviceClass,
            unitOfMeasurement: kind.unit, expireAfter: expireAfter(device), device: block)
        return (topics.discovery(component: entity.component, node: node, object: object), Payload.bytes(config))
    }

    /// One config per quantity the device's readings carried, and per probe and quantity.
    func deviceConfigs(_ device: KnownDevice) -> [(topic: String, payload: [UInt8])] {
        let deviceID = Topics.deviceID(device.address)
        let node = "blectl_\(deviceID)"
        let family = sensors.family(of: device.profile)
        let block = DiscoveryDevice(
            identifiers: [node], connections: [["mac", device.address.description]],
            name: device.name ?? device.address.description,
            model: device.model ?? family.modelLabel, manufacturer: family.manufacturer, viaDevice: gatewayIdentifier)
        var configs = Quantity.allCases.filter(device.quantities.contains).map { quantity in
            let kind = SensorKind(quantity)
            let entity = EntityID(component: "sensor", "blectl", EntityID.slug(deviceID), kind.object)
            let config = SensorConfig(
                name: kind.name, uniqueID: "\(node)_\(kind.object)", objectID: entity.object,
                defaultEntityID: entity.full, stateTopic: topics.state(deviceID),
                valueTemplate: "{{ value_json.\(kind.key) }}", deviceClass: kind.deviceClass,
                unitOfMeasurement: kind.unit, expireAfter: expireAfter(device), device: block)
            return (
                topics.discovery(component: entity.component, node: node, object: kind.object), Payload.bytes(config)
            )
        }
        // One entity per probe and quantity it carried, reading its probe's own state topic.
        for (probe, quantities) in device.probes.sorted(by: { $0.key < $1.key }) {
            for quantity in Quantity.allCases where quantities.contains(quantity) {
                configs.append(probeConfig(device, probe: probe, kind: SensorKind(quantity), node: node, block: block))
            }
        }
        if device.countsReception {
            let entity = EntityID(component: "sensor", "blectl", EntityID.slug(deviceID), "reception")
            // Published once a minute while readings come: at least three minutes.
            let config = SensorConfig(
                name: "Reception", uniqueID: "\(node)_reception", objectID: entity.object,
                defaultEntityID: entity.full, stateTopic: topics.reception(deviceID),
                valueTemplate: "{{ value_json.percent_last_hour }}", deviceClass: nil, unitOfMeasurement: "%",
                expireAfter: expireAfter(device).map { max($0, 180) }, entityCategory: "diagnostic",
                icon: "mdi:signal-variant", device: block)
            configs.append(
                (topics.discovery(component: entity.component, node: node, object: "reception"), Payload.bytes(config)))
        }
        return configs
    }

    /// `expire_after` in seconds: as configured, else three times the device's interval and
    /// at least a minute; nil for none.
    func expireAfter(_ device: KnownDevice) -> Int? {
        if let fixed = configuration.expireAfter {
            return fixed == .zero ? nil : Int(fixed.components.seconds)
        }
        let minimum = Int(MQTTOutput.Configuration.minimumExpireAfter.components.seconds)
        guard let interval = device.interval else { return minimum }
        return max(minimum, Int((interval * 3).components.seconds))
    }
}
