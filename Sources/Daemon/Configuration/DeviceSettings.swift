import Central
import SensorModel
import UnixSupport

/// A setting given per device, `key ADDRESS = value` in the file (`alias DC:A6:32:00:00:01 =
/// Kitchen`); each device once per key.
struct DeviceSetting: Sendable {
    /// The file key, `snake_case`.
    var key: String
    var valueName: String
    var help: String
    /// Applies the value for `address`; throws a message for a person.
    var apply: @Sendable (inout DaemonConfiguration, BluetoothAddress, String) throws(SettingError) -> Void

    /// Every per-device setting, in the order help lists them.
    static let all: [DeviceSetting] = [
        DeviceSetting(key: "alias", valueName: "NAME", help: "A name shown for the device instead of its own") {
            config, address, value throws(SettingError) in
            guard !value.isEmpty else { throw SettingError("an alias needs a name") }
            config.hub.aliases[address] = value
        },
        DeviceSetting(
            key: "bthome_key", valueName: "HEX", help: "The AES key of an encrypted BTHome sensor (32 hex digits)"
        ) { config, address, value throws(SettingError) in
            try config.setKey(for: address) { () throws(AdvertisementKey.ParseError) in
                try AdvertisementKey.bthome(hex: value)
            }
        },
        DeviceSetting(
            key: "mibeacon_key", valueName: "HEX",
            help: "The bind key of a Xiaomi sensor that encrypts (32 hex digits; 24 for MiBeacon v2/v3)"
        ) { config, address, value throws(SettingError) in
            try config.setKey(for: address) { () throws(AdvertisementKey.ParseError) in
                try AdvertisementKey.miBeacon(hex: value)
            }
        },
    ]

    static func named(_ key: String) -> DeviceSetting? {
        all.first { $0.key == key }
    }
}

extension DaemonConfiguration {
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
