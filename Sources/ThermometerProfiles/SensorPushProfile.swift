public import SensorModel

/// SensorPush HT1, HT.w and HTP.xw: manufacturer data whose company id is data, from devices
/// named `s` (HT1) or `SensorPush HT.w …`/`SensorPush HTP.xw …`, as Home Assistant's
/// sensorpush-ble reads them.
///
/// The data is the company id's two bytes (little-endian, as sent) followed by the payload.
/// An HT1 sends 4 bytes: a 12-bit humidity reading `h` (byte 0, low nibble of byte 1), a
/// 14-bit temperature reading `t` (high nibble of byte 1, byte 2, low two bits of byte 3) and
/// the device type 1 in bits 2-6 of byte 3; the temperature is `-46.85 + 175.72 t / 2¹⁴` °C,
/// the humidity `-6 + 125 h / 2¹²` % held to 0…100. The others send a byte whose low two bits
/// are the page (0: the measurement) and whose high six the device type (0: HTP.xw, 1: HT.w),
/// then their values packed into one little-endian number by mixed radix: the temperature
/// from -40 °C in 0.0025 °C steps (to 140 °C for the HTP.xw, 125 °C for the HT.w), the
/// humidity from 0 % in 0.0025 % steps to 100 %, and the HTP.xw's pressure from 300 hPa in
/// 0.01 hPa steps to 1250 hPa. An HT.w's data is 5 bytes, an HTP.xw's 7; other lengths,
/// pages, device types (the TC.x thermocouple's 2) are nobody's. No counter, no battery.
///
/// Values are rounded half away from zero at 0.01; the library rounds its floating-point
/// results, so at an exact midpoint (an HT1's humidity readings 512, 1536, 2560 and 3584,
/// its temperature readings 2048, 6144, 10240, 14336) the two may differ by 0.01.
public struct SensorPushProfile: NamedManufacturerDataProfile {
    /// A packed format: its values' kinds, each with its count of steps, offset in steps and
    /// steps per unit.
    struct Packed {
        let length: Int
        let fields: [(quantity: Quantity, steps: Int, offset: Int, perUnit: Int)]
    }

    /// The packed formats by device type.
    static let packed: [Int: Packed] = [
        0: Packed(
            length: 7,
            fields: [
                (.temperature, 72_001, -16_000, 400), (.humidity, 40_001, 0, 400), (.pressure, 95_001, 30_000, 100),
            ]),
        1: Packed(length: 5, fields: [(.temperature, 66_001, -16_000, 400), (.humidity, 40_001, 0, 400)]),
    ]

    /// The family: no counter.
    public static let family = SensorFamily(
        id: "sensorpush", name: "SensorPush", manufacturer: "SensorPush", models: ["HT1", "HT.w", "HTP.xw"],
        quantities: [.temperature, .humidity, .pressure])

    /// The names the library reads: `s` (with the HT1's service UUID, which blectl does not
    /// see beside the data), `…HT.w…`, `…HTP.xw…` (as the devices name themselves).
    static let names = LocalNameMatch([
        .equalsIgnoringCase("s"), .hasPrefix("SensorPush HT.w"), .hasPrefix("SensorPush HTP.xw"),
    ])
    /// The names the library reads: `s`, `SensorPush HT.w…`, `SensorPush HTP.xw…`.
    public var manufacturerDataNames: LocalNameMatch? { Self.names }

    /// Creates the profile.
    public init() {}

    /// Decodes an HT1's 4 bytes (named `s`) or an HT.w's 5 or HTP.xw's 7 bytes of page 0.
    public func decode(data: [UInt8], payload: [UInt8], name: String) -> Result<AdvertisementReading, ReadingError>? {
        if name == "s" { return decodeHT1(data, payload: payload) }
        guard name.hasPrefix("SensorPush "), data[0] & 3 == 0, let format = Self.packed[Int(data[0] >> 2)],
            data.count == format.length
        else {
            return nil
        }
        return catchingReadingError { () throws(ReadingError) in
            var builder = QuantitiesBuilder(profile: Self.family.id, raw: payload)
            builder.modelIndex = Self.family.modelIndex(named: name)
            var rest = UInt64(data.unsignedLittleEndian(at: 1, count: data.count - 1))
            for field in format.fields {
                let steps = UInt64(field.steps)
                try builder.add(field.quantity, Int(rest % steps) + field.offset, per: field.perUnit)
                rest /= steps
            }
            return try builder.reading(counter: nil, counterModulus: nil)
        }
    }

    /// An HT1's 4 bytes with device type 1; anything else is nobody's.
    private func decodeHT1(_ data: [UInt8], payload: [UInt8]) -> Result<AdvertisementReading, ReadingError>? {
        guard data.count == 4, data[3] >> 2 & 0x1F == 1 else { return nil }
        return catchingReadingError { () throws(ReadingError) in
            var builder = QuantitiesBuilder(profile: Self.family.id, raw: payload)
            builder.modelIndex = Self.family.modelIndex(of: "HT1")
            let humidity = Int(data[0]) | Int(data[1] & 0x0F) << 8
            let temperature = Int(data[1] >> 4) | Int(data[2]) << 4 | Int(data[3] & 3) << 12
            // -46.85 + 175.72 t / 16384 = (17572 t - 76759040) / 1638400
            try builder.add(.temperature, 17_572 * temperature - 76_759_040, per: 1_638_400)
            // -6 + 125 h / 4096, held to 0…100 % (0…409600 / 4096)
            try builder.add(.humidity, min(max(125 * humidity - 24_576, 0), 409_600), per: 4096)
            return try builder.reading(counter: nil, counterModulus: nil)
        }
    }
}
