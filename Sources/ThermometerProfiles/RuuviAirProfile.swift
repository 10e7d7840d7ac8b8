public import SensorModel

/// Ruuvi Air data formats 6 and E1: manufacturer data of Ruuvi Innovations (0x0499),
/// big-endian, as Home Assistant's ruuvitag-ble reads them.
///
/// Both begin with the format byte, then temperature sint16 × 0.005 °C, humidity uint16 ×
/// 0.0025 %, pressure uint16 + 50 000 Pa. Format 6 (at least 20 bytes, the rest not read):
/// PM2.5 at 7, CO₂ uint16 ppm at 9, VOC, NOx, luminosity, sound, the measurement sequence
/// (1 byte) at 15, flags, 3 bytes of the address. Format E1 (at least 40 bytes): PM1, PM2.5,
/// PM4, PM10 at 7-14, CO₂ at 15, VOC, NOx, luminosity (3 bytes), 3 reserved, the measurement
/// sequence (3 bytes) at 25, flags, 5 reserved, the address. "Not available" (0x8000 signed,
/// 0xFFFF unsigned, a sequence 0xFFFFFF) leaves the quantity out; the particulates, VOC and
/// NOx indices, luminosity and sound are left out (blectl has no quantities for them).
///
/// A Ruuvi Air sends each measurement twice, in format 6 (legacy advertisements) and E1
/// (extended ones), format 6 with the low byte of E1's sequence: the reading's counter is that
/// byte in both, so the two are one measurement to the replay guard and reception counting.
/// Other format bytes are not this profile's (format 5 is ``RuuviProfile``'s, which refuses
/// the rest); a short payload is ``ReadingError/Kind/malformed``.
public struct RuuviAirProfile: AdvertisementProfile {
    /// The formats decoded, with each one's shortest payload.
    static let minimumLengths: [UInt8: Int] = [0x06: 20, 0xE1: 40]

    /// The family: the measurement sequence's low byte is the counter (in both formats).
    public static let family = SensorFamily(
        id: "ruuvi-air", name: "Ruuvi Air (data formats 6 and E1)", manufacturer: "Ruuvi", models: ["Ruuvi Air"],
        quantities: [.temperature, .humidity, .pressure, .co2], counterModulus: 1 << 8)
    /// Manufacturer data 0x0499.
    public let fields: [AdvertisementField] = [.manufacturerData(RuuviProfile.companyID)]

    /// Creates the profile.
    public init() {}

    /// Decodes a format 6 or E1 payload; other formats are nobody's here.
    public func decode(
        _ payload: [UInt8], from address: BluetoothAddress, keyring: inout AdvertisementKeyring
    ) -> Result<AdvertisementReading, ReadingError>? {
        guard let format = payload.first, let minimum = Self.minimumLengths[format] else { return nil }
        let extended = format == 0xE1
        return catchingReadingError { () throws(ReadingError) in
            guard payload.count >= minimum else {
                throw ReadingError(
                    .malformed, raw: payload,
                    detail:
                        "Ruuvi data format \(extended ? "E1" : "6") is at least \(minimum) bytes, got \(payload.count)")
            }
            var builder = QuantitiesBuilder(profile: Self.family.id, raw: payload)
            try RuuviProfile.addClimate(payload, to: &builder)
            let co2 = payload.unsignedBigEndian(at: extended ? 15 : 9, count: 2)
            if co2 != 0xFFFF { try builder.add(.co2, co2) }
            guard !builder.isEmpty else {
                throw ReadingError(
                    .unsupportedValue, raw: payload, detail: "every Ruuvi Air quantity is \"not available\"")
            }
            let sequence = extended ? payload.unsignedBigEndian(at: 25, count: 3) : Int(payload[15])
            let counter = extended && sequence == 0xFF_FFFF ? nil : UInt32(sequence & 0xFF)
            return try builder.reading(counter: counter, counterModulus: Self.family.counterModulus)
        }
    }
}
