public import SensorModel

/// Inkbird thermo-hygrometers: manufacturer data whose company id is data, the model told by
/// the local name, little-endian, as Home Assistant's inkbird-ble reads them.
///
/// The advertisement's data is the company id's two bytes (little-endian, as sent) followed
/// by the payload BlueZ files under it (the measurement's raw value, as for every format).
/// - `sps` (IBS-TH1, IBS-TH1 Plus) and `tps` (IBS-TH2, IBS-P01B), 9 bytes: temperature
///   (sint16 × 0.01 °C) in bytes 0-1, which is where BlueZ reads the company id, so the
///   `ManufacturerData` key changes with the temperature; humidity (uint16 × 0.01 %) in bytes
///   2-3; battery (%) in byte 7. A `tps` sending humidity 0x0000 or 0xFFFF has no humidity
///   sensor (IBS-P01B): no humidity.
/// - `ITH-11-B`, `ITH-13-B`, `ITH-21-B`, `IBS-P02B`, 18 bytes (under 0x2449): temperature
///   (sint16 × 0.1 °C) in bytes 6-7, humidity (uint16 × 0.1 %) in bytes 8-9, not sent when
///   0 (the pool sensor has none), battery (%) in byte 10.
///
/// A humidity above 100 % or a battery above 100 % is a corrupt packet: an error (Home
/// Assistant drops the packet). Other lengths and other names are nobody's (the library
/// reads a longer payload too, and fails on a shorter one). No counter.
public struct InkbirdProfile: NamedManufacturerDataProfile {
    /// The two layouts, by the model's local name.
    enum Layout {
        /// 9 bytes, hundredths; whether humidity is sent always (`sps`) or unless 0 / 0xFFFF (`tps`).
        case nineBytes(humidityAlways: Bool)
        /// 18 bytes, tenths.
        case eighteenBytes
    }

    /// The local names, as the sensors spell them, and the layout each model sends.
    static let advertisedNames: KeyValuePairs<String, Layout> = [
        "sps": .nineBytes(humidityAlways: true), "tps": .nineBytes(humidityAlways: false),
        "ITH-11-B": .eighteenBytes, "ITH-13-B": .eighteenBytes, "ITH-21-B": .eighteenBytes, "IBS-P02B": .eighteenBytes,
    ]
    /// The layouts by lower-case name (names are compared ignoring case).
    static let layouts = Dictionary(uniqueKeysWithValues: advertisedNames.map { ($0.key.lowercased(), $0.value) })

    /// The family: no counter.
    public static let family = SensorFamily(
        id: "inkbird", name: "Inkbird", manufacturer: "INKBIRD",
        models: ["IBS-TH1", "IBS-TH1 Plus", "IBS-TH2", "IBS-P01B", "ITH-11-B", "ITH-13-B", "ITH-21-B", "IBS-P02B"],
        quantities: [.temperature, .humidity, .battery])

    /// The models' local names, ignoring case.
    static let names = LocalNameMatch(advertisedNames.map { .equalsIgnoringCase($0.key) })
    /// The models' local names, ignoring case.
    public var manufacturerDataNames: LocalNameMatch? { Self.names }

    /// Creates the profile.
    public init() {}

    /// Decodes the data of the layout the model's name tells.
    public func decode(data: [UInt8], payload: [UInt8], name: String) -> Result<AdvertisementReading, ReadingError>? {
        guard let layout = Self.layouts[name.lowercased()] else { return nil }
        switch layout {
        case .nineBytes(let humidityAlways):
            guard data.count == 9 else { return nil }
            return catchingReadingError { () throws(ReadingError) in
                var builder = QuantitiesBuilder(profile: Self.family.id, raw: payload)
                let humidity = data.unsignedLittleEndian(at: 2, count: 2)
                let sendsHumidity = humidityAlways || (humidity != 0 && humidity != 0xFFFF)
                try Self.check(humidity: sendsHumidity ? humidity : 0, per: 100, battery: Int(data[7]), in: payload)
                try builder.add(.temperature, data.signedLittleEndian(at: 0, count: 2), per: 100)
                if sendsHumidity { try builder.add(.humidity, humidity, per: 100) }
                try builder.add(.battery, Int(data[7]))
                return try builder.reading(counter: nil, counterModulus: nil)
            }
        case .eighteenBytes:
            guard data.count == 18 else { return nil }
            return catchingReadingError { () throws(ReadingError) in
                var builder = QuantitiesBuilder(profile: Self.family.id, raw: payload)
                let humidity = data.unsignedLittleEndian(at: 8, count: 2)
                try Self.check(humidity: humidity, per: 10, battery: Int(data[10]), in: payload)
                try builder.add(.temperature, data.signedLittleEndian(at: 6, count: 2), per: 10)
                try builder.add(.battery, Int(data[10]))
                if humidity != 0 { try builder.add(.humidity, humidity, per: 10) }
                return try builder.reading(counter: nil, counterModulus: nil)
            }
        }
    }

    /// A humidity or battery above 100 % marks a corrupt packet, which Home Assistant drops whole.
    private static func check(humidity: Int, per scale: Int, battery: Int, in payload: [UInt8]) throws(ReadingError) {
        guard humidity <= 100 * scale, battery <= 100 else {
            throw ReadingError(
                .outOfRange, raw: payload,
                detail: "Inkbird humidity \(Double(humidity) / Double(scale)) % or battery \(battery) % above 100")
        }
    }
}
