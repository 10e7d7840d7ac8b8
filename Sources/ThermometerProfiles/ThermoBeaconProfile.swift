public import SensorModel

/// ThermoBeacon (sold as Brifit, Oria, SensorBlue and others): manufacturer data under a
/// company id that is the model's number (0x10, 0x11, 0x14, 0x15, 0x18, 0x1B, 0x30), 18 bytes,
/// little-endian.
///
/// Bytes 8-13: battery voltage (uint16, mV), temperature and humidity (sint16 and uint16, in
/// sixteenths), rounded to hundredths half to even as Home Assistant's thermobeacon-ble
/// shows them. A 20-byte payload is the sensor's other packet (no measurement): nobody's. A
/// temperature or humidity above 100 is a reading error (Home Assistant drops the packet).
/// Home Assistant also shows a battery percentage it computes from the voltage; blectl
/// reports the voltage the sensor sent. No counter.
public struct ThermoBeaconProfile: AdvertisementProfile {
    /// The company ids the sensors use, which are their model numbers.
    public static let companyIDs: [UInt16] = [0x10, 0x11, 0x14, 0x15, 0x18, 0x1B, 0x30]
    /// The length of a measurement packet.
    public static let payloadLength = 18

    /// The family: no counter.
    public static let family = SensorFamily(
        id: "thermobeacon", name: "ThermoBeacon", manufacturer: "ThermoBeacon",
        models: ["Smart hygrometer", "Lanyard/mini hygrometer"], quantities: [.temperature, .humidity, .voltage])

    /// Manufacturer data under each model's company id.
    public let fields: [AdvertisementField] = Self.companyIDs.map(AdvertisementField.manufacturerData)

    /// Creates the profile.
    public init() {}

    /// Decodes an 18-byte payload; `nil` for any other length.
    public func decode(
        _ payload: [UInt8], from address: BluetoothAddress, keyring: inout AdvertisementKeyring
    ) -> Result<AdvertisementReading, ReadingError>? {
        decodeFixedLength(payload, length: Self.payloadLength, family: Self.family) { builder throws(ReadingError) in
            let sixteenths = payload.signedLittleEndian(at: 10, count: 2)
            let humidity = payload.unsignedLittleEndian(at: 12, count: 2)
            guard sixteenths <= 1600, humidity <= 1600 else {
                throw ReadingError(
                    .outOfRange, raw: payload,
                    detail: "ThermoBeacon temperature \(Double(sixteenths) / 16) °C or humidity "
                        + "\(Double(humidity) / 16) % above 100")
            }
            try builder.add(.temperature, Self.hundredths(sixteenths), per: 100)
            try builder.add(.humidity, Self.hundredths(humidity), per: 100)
            try builder.add(.voltage, payload.unsignedLittleEndian(at: 8, count: 2), per: 1000)
            return nil
        }
    }

    /// `sixteenths ÷ 16` in hundredths, half to even (Python's `round(x, 2)` on exact values).
    static func hundredths(_ sixteenths: Int) -> Int {
        let scaled = sixteenths * 100
        let quotient = scaled >= 0 ? scaled / 16 : -((-scaled) / 16)
        let remainder = abs(scaled) % 16
        guard remainder != 0 else { return quotient }
        let away = scaled >= 0 ? quotient + 1 : quotient - 1
        if remainder * 2 > 16 { return away }
        if remainder * 2 < 16 { return quotient }
        return quotient.isMultiple(of: 2) ? quotient : away
    }
}
