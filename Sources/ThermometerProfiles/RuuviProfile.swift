public import SensorModel

/// RuuviTag data format 5 (RAWv2): manufacturer data of Ruuvi Innovations (0x0499), 24
/// bytes, big-endian.
///
/// Format byte 5, temperature sint16 × 0.005 °C, humidity uint16 × 0.0025 %, pressure
/// uint16 + 50 000 Pa, acceleration x/y/z, power (11 bits battery mV above 1600, 5 bits TX
/// power), movement counter, measurement sequence uint16 (the reading's counter), address.
/// "Not available" (0x8000 signed, 0xFFFF unsigned, 2047 mV) leaves the quantity out. The
/// battery is reported as a voltage: the format has no percentage. Formats 6 and E1 are
/// ``RuuviAirProfile``'s (looked up first); other format bytes are
/// ``ReadingError/Kind/unsupportedVersion``.
public struct RuuviProfile: AdvertisementProfile {
    /// Ruuvi Innovations' company identifier.
    public static let companyID: UInt16 = 0x0499
    /// The data format decoded.
    public static let dataFormat: UInt8 = 5
    /// The payload's length in data format 5.
    public static let payloadLength = 24

    /// The family: the measurement sequence is a two-byte counter.
    public static let family = SensorFamily(
        id: "ruuvi", name: "RuuviTag (data format 5)", manufacturer: "Ruuvi", models: ["RuuviTag"],
        quantities: [.temperature, .humidity, .pressure, .voltage], counterModulus: 1 << 16)
    /// Manufacturer data 0x0499.
    public let fields: [AdvertisementField] = [.manufacturerData(Self.companyID)]

    /// Creates the profile.
    public init() {}

    /// Decodes a data format 5 payload.
    public func decode(
        _ payload: [UInt8], from address: BluetoothAddress, keyring: inout AdvertisementKeyring
    ) -> Result<AdvertisementReading, ReadingError>? {
        catchingReadingError { () throws(ReadingError) in
            guard let format = payload.first else { throw ReadingError(.empty, raw: payload) }
            guard format == Self.dataFormat else {
                throw ReadingError(
                    .unsupportedVersion, raw: payload,
                    detail: "Ruuvi data format \(format); formats 5 (RAWv2), 6 and E1 are decoded")
            }
            guard payload.count == Self.payloadLength else {
                throw ReadingError(
                    .malformed, raw: payload, detail: "Ruuvi data format 5 is 24 bytes, got \(payload.count)")
            }
            var builder = QuantitiesBuilder(profile: id, raw: payload)
            try Self.addClimate(payload, to: &builder)
            let batteryAbove1600 = payload.unsignedBigEndian(at: 13, count: 2) >> 5
            if batteryAbove1600 != 2047 { try builder.add(.voltage, batteryAbove1600 + 1600, per: 1000) }
            guard !builder.isEmpty else {
                throw ReadingError(.unsupportedValue, raw: payload, detail: "every Ruuvi quantity is \"not available\"")
            }
            let sequence = payload.unsignedBigEndian(at: 16, count: 2)
            return try builder.reading(
                counter: sequence == 0xFFFF ? nil : UInt32(sequence), counterModulus: Self.family.counterModulus)
        }
    }

    /// Adds what every Ruuvi format since 5 carries in bytes 1-6, big-endian: temperature
    /// sint16 × 0.005 °C, humidity uint16 × 0.0025 %, pressure uint16 + 50 000 Pa, each left
    /// out when "not available" (0x8000, 0xFFFF). Data formats 6 and E1 (``RuuviAirProfile``)
    /// share it.
    static func addClimate(_ payload: [UInt8], to builder: inout QuantitiesBuilder) throws(ReadingError) {
        let temperature = payload.signedBigEndian(at: 1, count: 2)
        if temperature != -0x8000 { try builder.add(.temperature, temperature, per: 200) }
        let humidity = payload.unsignedBigEndian(at: 3, count: 2)
        if humidity != 0xFFFF { try builder.add(.humidity, humidity, per: 400) }
        let pressure = payload.unsignedBigEndian(at: 5, count: 2)
        if pressure != 0xFFFF { try builder.add(.pressure, pressure + 50_000, per: 100) }
    }
}
