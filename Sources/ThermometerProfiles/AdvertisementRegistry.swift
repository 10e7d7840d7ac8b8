import SensorModel

/// The advertisement formats the daemon knows, looked up by advertisement field.
public struct AdvertisementRegistry: Sendable {
    /// The profiles in lookup order; on a shared field the first to claim a payload wins.
    public private(set) var profiles: [any AdvertisementProfile]

    /// Every known format, in lookup order (the documents' lists of formats are written from
    /// it: `make docs`).
    public static let standard = AdvertisementRegistry(profiles: [
        BTHomeProfile(),
        BTHomeV1Profile(),
        PVVXProfile(),
        ATC1441Profile(),
        PVVXEncryptedProfile(),
        RuuviAirProfile(),
        RuuviProfile(),
        GoveeH5075Profile(),
        GoveeH5074Profile(),
        GoveeH5051Profile(),
        GoveeH5100Profile(),
        GoveeH5106Profile(),
        GoveeB5178Profile(),
        GoveeH5179Profile(),
        GoveeMeatProfile(),
        XiaomiMiBeaconProfile(),
        QingpingProfile(),
        ThermoBeaconProfile(),
        InkbirdProfile(),
        InkbirdBBQProfile(),
        ThermoProProfile(),
        ThermoProProbeProfile(),
        SwitchBotProfile(),
        SensorPushProfile(),
        BlueMaestroProfile(),
    ])

    /// Creates a registry that looks profiles up in the given order.
    public init(profiles: [any AdvertisementProfile]) {
        self.profiles = profiles
    }

    /// The profiles that read `field`, in lookup order.
    public func profiles(reading field: AdvertisementField) -> [any AdvertisementProfile] {
        profiles.filter { $0.fields.contains(field) }
    }

    /// Every service data UUID some profile reads, without duplicates, in lookup order
    /// (for a discovery filter).
    public var serviceDataUUIDs: [BluetoothUUID] {
        uniqueFields.compactMap { field in
            if case .serviceData(let uuid) = field { uuid } else { nil }
        }
    }

    /// Every manufacturer company id some profile reads, without duplicates, in lookup order.
    public var manufacturerIDs: [UInt16] {
        uniqueFields.compactMap { field in
            if case .manufacturerData(let company) = field { company } else { nil }
        }
    }

    /// Whether some profile reads the manufacturer data of a device named `name` under any
    /// company id (Inkbird, ThermoPro: the id's two bytes are data).
    public func readsAnyManufacturerData(from name: String?) -> Bool {
        profiles.contains { $0.manufacturerDataNames?.matches(name) == true }
    }

    /// The beginnings of the local names whose manufacturer data some profile reads under any
    /// company id, without duplicates, in lookup order (for advertisement monitor patterns).
    public var localNamePrefixes: [String] {
        profiles.reduce(into: []) { all, profile in
            for prefix in profile.manufacturerDataNames?.prefixes ?? [] where !all.contains(prefix) {
                all.append(prefix)
            }
        }
    }

    /// The field the first profile reading `field` needs beside it
    /// (``AdvertisementProfile/companion(of:)``), if any.
    public func companion(of field: AdvertisementField) -> AdvertisementField? {
        for profile in profiles where profile.fields.contains(field) {
            if let companion = profile.companion(of: field) { return companion }
        }
        return nil
    }

    /// Whether some profile's data comes only in scan responses, so discovery must scan actively.
    public var needsActiveScanning: Bool {
        profiles.contains { $0.needsActiveScanning }
    }

    private var uniqueFields: [AdvertisementField] {
        profiles.reduce(into: []) { all, profile in
            for field in profile.fields where !all.contains(field) { all.append(field) }
        }
    }
}
