public import SensorModel

/// ThermoPro thermo-hygrometers (TP357, TP357S, TP358, TP359, TP393, TP397): manufacturer
/// data whose company id is data, from devices named `TP35…` or `TP39…`, as Home Assistant's
/// thermopro-ble reads them.
///
/// The advertisement's data is the company id's two bytes (little-endian, as sent) followed
/// by the payload BlueZ files under it (the measurement's raw value, as for every format), at
/// least 6 bytes in all. Bytes 1-2: temperature (sint16 × 0.1 °C), so the `ManufacturerData`
/// key changes with it; byte 3: humidity (%); the low two bits of byte 4: battery, 0, 1 or 2
/// for 1, 50 or 100 % (3: none). Bytes 1-3 all 0xFF: no temperature or humidity, only the
/// battery. Shorter data, or nothing to report, is nobody's. No counter. The probe
/// thermometers (TP96x, TP97x) send probe temperatures blectl has no quantity for.
public struct ThermoProProfile: NamedManufacturerDataProfile {
    /// The battery percentages of the two-bit levels.
    static let batteryLevels = [1, 50, 100]
    /// The shortest data read (company id included).
    static let minimumLength = 6

    /// The family: no counter.
    public static let family = SensorFamily(
        id: "thermopro", name: "ThermoPro", manufacturer: "ThermoPro",
        models: ["TP357", "TP357S", "TP358", "TP359", "TP393", "TP397"],
        quantities: [.temperature, .humidity, .battery])

    /// The names the library reads as thermo-hygrometers: `TP35…`, `TP39…`.
    static let names = LocalNameMatch([.hasPrefix("TP35"), .hasPrefix("TP39")])
    /// The names the library reads as thermo-hygrometers: `TP35…`, `TP39…`.
    public var manufacturerDataNames: LocalNameMatch? { Self.names }

    /// Creates the profile.
    public init() {}

    /// Decodes at least 6 bytes of data; shorter data is nobody's.
    public func decode(data: [UInt8], payload: [UInt8], name: String) -> Result<AdvertisementReading, ReadingError>? {
        guard data.count >= Self.minimumLength else { return nil }
        return catchingReadingError { () throws(ReadingError) in
            var builder = QuantitiesBuilder(profile: Self.family.id, raw: payload)
            builder.modelIndex = Self.family.modelIndex(named: name)
            if data[1..<4] != [0xFF, 0xFF, 0xFF] {
                try builder.add(.temperature, data.signedLittleEndian(at: 1, count: 2), per: 10)
                try builder.add(.humidity, Int(data[3]))
            }
            let level = Int(data[4] & 3)
            if level < Self.batteryLevels.count { try builder.add(.battery, Self.batteryLevels[level]) }
            guard !builder.isEmpty else { return nil }
            return try builder.reading(counter: nil, counterModulus: nil)
        }
    }
}
