public import SensorModel

/// SwitchBot thermo-hygrometers (Meter, Meter Plus, Meter Pro, Meter Pro CO₂, Indoor/Outdoor
/// Meter) and the Hub 2's sensor: service data 0xFD3D and manufacturer data 0x0969, read together, as
/// Home Assistant's PySwitchbot reads them.
///
/// Service data (in the scan response): byte 0 the model (its low 7 bits: `T`/`t` Meter,
/// `i`/`I` Meter Plus, `4`/0x14 Meter Pro, `5`/0x15 Meter Pro CO₂, `w`/`W` Indoor/Outdoor Meter,
/// `v`/`V` Hub 2; bit 7
/// marks encryption, which these do not use), byte 2 the battery (low 7 bits, %), and on a
/// Meter bytes 3-5 the temperature and humidity. Manufacturer data (in the advertisement):
/// the address, then the same three bytes at 8-10 (13-15 on a Hub 2), which win when present.
/// The three bytes: the low nibble of the first is the tenths, the second's low 7 bits the
/// whole degrees and its bit 7 the sign (set: positive), the third's low 7 bits the humidity
/// (%; its bit 7 says the display shows °F). The Hub 2 sends no battery. A Meter Pro CO₂'s
/// manufacturer data carries the carbon dioxide at bytes 13-14 (uint16, big-endian, ppm);
/// above 9999 ppm, the sensor's range, it is left out as PySwitchbot leaves it out (a
/// spurious value, not a reading error).
///
/// Each field is decoded with the other's latest payload (``AdvertisementContext/companion``):
/// without the service data the model is unknown (0x0969 is every SwitchBot device's), and
/// the advertisement is nobody's. A temperature and humidity both 0, or no temperature
/// anywhere, carries nothing: nobody's (the battery alone is not shown either). Needs active
/// scanning, for the service data. No counter.
public struct SwitchBotProfile: ContextualAdvertisementProfile {
    /// SwitchBot's service data UUID, 0xFD3D.
    public static let serviceUUID = BluetoothUUID(UInt16(0xFD3D))
    /// SwitchBot's company id (Woan Technology), 0x0969.
    public static let companyID: UInt16 = 0x0969

    /// What a model sends besides the temperature, humidity and battery.
    enum Kind: Sendable {
        /// A meter: the three bytes at 8 of the manufacturer data (or 3 of the service data).
        case meter
        /// A Meter Pro CO₂: a meter's bytes, and the carbon dioxide at 13 of the manufacturer data.
        case meterCO2
        /// A Hub 2: the three bytes at 13 of the manufacturer data, no battery.
        case hub
    }

    /// The model bytes (bit 7 cleared) of the thermo-hygrometers, and what each sends.
    static let models: [UInt8: Kind] = [
        0x54: .meter, 0x74: .meter, 0x69: .meter, 0x49: .meter, 0x34: .meter, 0x14: .meter, 0x77: .meter,
        0x57: .meter, 0x35: .meterCO2, 0x15: .meterCO2, 0x76: .hub, 0x56: .hub,
    ]

    /// The models by the same byte (bit 7 cleared), as PySwitchbot names them.
    static let modelNames: [UInt8: String] = [
        0x54: "Meter", 0x74: "Meter", 0x69: "Meter Plus", 0x49: "Meter Plus", 0x34: "Meter Pro", 0x14: "Meter Pro",
        0x77: "Indoor/Outdoor Meter", 0x57: "Indoor/Outdoor Meter", 0x35: "Meter Pro CO2", 0x15: "Meter Pro CO2",
        0x76: "Hub 2", 0x56: "Hub 2",
    ]

    /// The highest carbon dioxide a Meter Pro CO₂ measures, in ppm; PySwitchbot drops more.
    static let maximumCO2 = 9999

    /// The family: no counter; the model comes in the scan response.
    public static let family = SensorFamily(
        id: "switchbot", name: "SwitchBot", manufacturer: "SwitchBot",
        models: ["Meter", "Meter Plus", "Meter Pro", "Meter Pro CO2", "Indoor/Outdoor Meter", "Hub 2"],
        quantities: [.temperature, .humidity, .battery, .co2], needsActiveScanning: true)

    /// Service data 0xFD3D and manufacturer data 0x0969.
    public let fields: [AdvertisementField] = [.serviceData(Self.serviceUUID), .manufacturerData(Self.companyID)]

    /// Creates the profile.
    public init() {}

    /// Each field's companion is the other.
    public func companion(of field: AdvertisementField) -> AdvertisementField? {
        switch field {
        case .serviceData(Self.serviceUUID): .manufacturerData(Self.companyID)
        case .manufacturerData(Self.companyID): .serviceData(Self.serviceUUID)
        default: nil
        }
    }

    /// Decodes the service data and the manufacturer data, one of them `payload`.
    public func decode(
        _ payload: [UInt8], in field: AdvertisementField, context: AdvertisementContext,
        from address: BluetoothAddress, keyring: inout AdvertisementKeyring
    ) -> Result<AdvertisementReading, ReadingError>? {
        let service: [UInt8]?
        let manufacturer: [UInt8]?
        switch field {
        case .serviceData(Self.serviceUUID): (service, manufacturer) = (payload, context.companion)
        case .manufacturerData(Self.companyID): (service, manufacturer) = (context.companion, payload)
        default: return nil
        }
        guard let service, let model = service.first, let kind = Self.models[model & 0x7F] else { return nil }
        var measured: ArraySlice<UInt8>?
        var battery: Int?
        if kind == .hub {
            if let manufacturer, manufacturer.count >= 16 { measured = manufacturer[13..<16] }
        } else {
            if let manufacturer, manufacturer.count >= 11 { measured = manufacturer[8..<11] }
            if service.count >= 3 {
                if measured == nil, service.count >= 6 { measured = service[3..<6] }
                battery = Int(service[2] & 0x7F)
            }
        }
        guard let measured else { return nil }
        let bytes = Array(measured)
        let tenths = Int(bytes[1] & 0x7F) * 10 + Int(bytes[0] & 0x0F)
        let humidity = Int(bytes[2] & 0x7F)
        guard tenths != 0 || humidity != 0 else { return nil }
        return catchingReadingError { () throws(ReadingError) in
            var builder = QuantitiesBuilder(profile: Self.family.id, raw: payload)
            builder.modelIndex = Self.modelNames[model & 0x7F].flatMap(Self.family.modelIndex(of:))
            try builder.add(.temperature, bytes[1] & 0x80 != 0 ? tenths : -tenths, per: 10)
            try builder.add(.humidity, humidity)
            if let battery { try builder.add(.battery, battery) }
            if kind == .meterCO2, let manufacturer, manufacturer.count >= 15 {
                let co2 = manufacturer.unsignedBigEndian(at: 13, count: 2)
                if co2 <= Self.maximumCO2 { try builder.add(.co2, co2) }
            }
            return try builder.reading(counter: nil, counterModulus: nil)
        }
    }
}
