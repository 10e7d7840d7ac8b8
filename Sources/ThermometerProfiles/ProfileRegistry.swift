/// The thermometer profiles the daemon knows, looked up by discovered service UUID.
///
/// Two registries are equal when they look up alike: the same profiles in the same order,
/// claiming the same UUIDs.
public struct ProfileRegistry: Sendable, Equatable {
    /// The profiles in lookup order; the first one claiming a service wins.
    public private(set) var profiles: [any ThermometerProfile]

    /// Every known profile with its default UUIDs: the Pi cputemp text profile, Health
    /// Thermometer and Environmental Sensing, in that order, then Xiaomi's stock firmware's
    /// live value (followed only on devices configured for it, `gatt_live`).
    public static let standard = ProfileRegistry(profiles: [
        PiCPUTemperatureProfile(),
        HealthThermometerProfile(),
        EnvironmentalSensingProfile(),
        XiaomiStockGATTProfile(),
    ])

    /// Creates a registry that looks profiles up in the given order.
    public init(profiles: [any ThermometerProfile]) {
        self.profiles = profiles
    }

    /// Whether both registries hold the same profiles, in order, with the same UUIDs.
    public static func == (lhs: ProfileRegistry, rhs: ProfileRegistry) -> Bool {
        lhs.profiles.map(\.id) == rhs.profiles.map(\.id) && lhs.allServiceUUIDs == rhs.allServiceUUIDs
            && lhs.allTemperatureCharacteristicUUIDs == rhs.allTemperatureCharacteristicUUIDs
            && lhs.piCPUTemperature?.unitCharacteristicUUIDs == rhs.piCPUTemperature?.unitCharacteristicUUIDs
    }

    /// The profile that claims a service, or `nil` if none does.
    public func profile(forService uuid: BluetoothUUID) -> (any ThermometerProfile)? {
        profiles.first { $0.matches(service: uuid) }
    }

    /// Every service UUID of every profile, without duplicates, in lookup order.
    public var allServiceUUIDs: [BluetoothUUID] {
        profiles.reduce(into: []) { all, profile in all = appendingUnique(all, profile.serviceUUIDs) }
    }

    /// The service UUIDs that make a device a thermometer by themselves: those of the
    /// profiles found by service (``ThermometerProfile/isFoundByService``).
    public var identifyingServiceUUIDs: [BluetoothUUID] {
        profiles.filter(\.isFoundByService).reduce(into: []) { all, profile in
            all = appendingUnique(all, profile.serviceUUIDs)
        }
    }

    /// Every temperature characteristic UUID of every profile, without duplicates.
    public var allTemperatureCharacteristicUUIDs: [BluetoothUUID] {
        profiles.reduce(into: []) { all, profile in
            all = appendingUnique(all, profile.temperatureCharacteristicUUIDs)
        }
    }

    /// The Pi cputemp profile, if the registry has one.
    public var piCPUTemperature: PiCPUTemperatureProfile? {
        profiles.lazy.compactMap { $0 as? PiCPUTemperatureProfile }.first
    }

    /// Returns a copy whose Pi cputemp profile also accepts the given UUID spellings.
    ///
    /// Use it for spellings from configuration. A registry without a Pi profile is
    /// returned unchanged.
    public func addingPiCPUTemperatureUUIDs(
        services: [BluetoothUUID] = [],
        temperatureCharacteristics: [BluetoothUUID] = [],
        unitCharacteristics: [BluetoothUUID] = []
    ) -> ProfileRegistry {
        ProfileRegistry(
            profiles: profiles.map { profile in
                guard let pi = profile as? PiCPUTemperatureProfile else { return profile }
                return pi.adding(
                    serviceUUIDs: services,
                    temperatureCharacteristicUUIDs: temperatureCharacteristics,
                    unitCharacteristicUUIDs: unitCharacteristics)
            })
    }
}
