import Central
import ReadingHub
import SensorModel
import UnixSupport

/// A setting given per device, `key ADDRESS = value` in the file (`alias DC:A6:32:00:00:01 =
/// Kitchen`), or `key ADDRESS WHAT = value` for one that names what it sets (`calibrate
/// DC:A6:32:00:00:01 temperature = +0.3`); each device once per key (and per `WHAT`).
struct DeviceSetting: Sendable {
    /// The file key, `snake_case`.
    var key: String
    var valueName: String
    var help: String
    /// The words a line must give after the address (`temperature`, `humidity`); empty when
    /// the setting takes none.
    var qualifiers: [String] = []
    /// Applies the value for `address` (and the qualifier, for a setting that takes one);
    /// throws a message for a person.
    var apply: @Sendable (inout DaemonConfiguration, BluetoothAddress, String?, String) throws(SettingError) -> Void

    /// Every per-device setting, in the order help lists them.
    static let all: [DeviceSetting] = [
        DeviceSetting(key: "alias", valueName: "NAME", help: "A name shown for the device instead of its own") {
            config, address, _, value throws(SettingError) in
            guard !value.isEmpty else { throw SettingError("an alias needs a name") }
            config.hub.aliases[address] = value
        },
        DeviceSetting(
            key: "bthome_key", valueName: "HEX", help: "The AES key of an encrypted BTHome sensor (32 hex digits)"
        ) { config, address, _, value throws(SettingError) in
            try config.setKey(for: address) { () throws(AdvertisementKey.ParseError) in
                try AdvertisementKey.bthome(hex: value)
            }
        },
        DeviceSetting(
            key: "mibeacon_key", valueName: "HEX",
            help: "The bind key of a Xiaomi sensor that encrypts (32 hex digits; 24 for MiBeacon v2/v3)"
        ) { config, address, _, value throws(SettingError) in
            try config.setKey(for: address) { () throws(AdvertisementKey.ParseError) in
                try AdvertisementKey.miBeacon(hex: value)
            }
        },
        DeviceSetting(
            key: "calibrate", valueName: "OFFSET",
            help: "An offset added to a quantity of the device's readings: calibrate ADDRESS temperature = +0.3 "
                + "(within ±20 °C) or calibrate ADDRESS humidity = -2.5 (within ±50 %RH)",
            qualifiers: Calibration.bounds.map(\.name)
        ) { config, address, quantityName, value throws(SettingError) in
            try config.setCalibration(for: address, quantityName ?? "", value)
        },
        DeviceSetting(
            key: "sensor_memory", valueName: "MODE",
            help: "Whether the device's gaps are filled from its own memory, over sensor_memory: auto or off"
        ) { config, address, _, value throws(SettingError) in
            config.sensorMemory.devices[address] = try SensorMemorySettings.mode(value)
        },
        DeviceSetting(
            key: "gatt_live", valueName: "BOOL",
            help: "Follow the device over GATT, holding a link: a Xiaomi stock sensor's live value without its "
                + "bind key: yes or no"
        ) { config, address, _, value throws(SettingError) in
            switch value.lowercased() {
            case "yes", "true", "on": config.thermometers.addresses.insert(address)
            case "no", "false", "off": config.thermometers.addresses.remove(address)
            default: throw SettingError("expected yes or no, got '\(value)'")
            }
        },
        DeviceSetting(
            key: "sensor_clock_sync", valueName: "MODE",
            help: "Whether the device's clock is set (memory sensors, Current Time Service), over sensor_clock_sync: "
                + "daily or off"
        ) { config, address, _, value throws(SettingError) in
            config.sensorMemory.clockSyncDevices[address] = try SensorMemorySettings.clockMode(value)
        },
    ]

    static func named(_ key: String) -> DeviceSetting? {
        all.first { $0.key == key }
    }
}

extension DaemonConfiguration {
    /// Sets the offset of `quantityName` (`temperature`, `humidity`) for `address`, a signed
    /// decimal (`+0.3`) within the quantity's bound.
    mutating func setCalibration(
        for address: BluetoothAddress, _ quantityName: String, _ value: String
    ) throws(SettingError) {
        guard let bound = Calibration.bounds.first(where: { $0.name == quantityName }) else {
            throw SettingError("no such quantity '\(quantityName)': temperature or humidity")
        }
        guard let offset = Double(value), offset.isFinite else {
            throw SettingError("not a number: '\(value)'")
        }
        guard abs(offset) <= bound.limit else {
            throw SettingError("\(value) is out of range (-\(Int(bound.limit))…+\(Int(bound.limit)))")
        }
        hub.calibrations[address, default: Calibration()].offsets[bound.quantity] = offset
    }

    /// Sets the one key of `address`, whichever format's setting or key file gives it.
    mutating func setKey(
        for address: BluetoothAddress, _ parse: () throws(AdvertisementKey.ParseError) -> AdvertisementKey
    ) throws(SettingError) {
        guard advertisementKeys[address] == nil else {
            throw SettingError(
                "\(address) has a key already (bthome_key, mibeacon_key or a key file): one key per device")
        }
        do {
            advertisementKeys[address] = try parse()
        } catch {
            throw SettingError("\(error)")
        }
    }
}
