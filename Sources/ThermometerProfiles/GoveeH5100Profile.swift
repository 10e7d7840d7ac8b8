public import SensorModel

/// Govee H5100-H5105, H5108, H5110, H5174, H5177 and the newer H5179 (`GV5179…`):
/// manufacturer data 0x0001, as Home Assistant's govee-ble reads them.
///
/// Bytes 2-5 are ``GoveePackedMeasurement``'s: temperature and humidity packed in 24 bits,
/// then the battery and the error flag. Six bytes are read from a device whose local name
/// holds one of the models (`GVH5100_7738`); eight from any device (an H5108), unless its
/// name says H5140 or H5112 (a CO₂ monitor, a probe thermometer: other layouts of the same
/// length). Other lengths are not this format (B5178 is 9 bytes). No counter.
public struct GoveeH5100Profile: ContextualAdvertisementProfile {
    /// The id BlueZ reads from the first two bytes.
    public static let companyID: UInt16 = 0x0001
    /// The models whose six bytes are read, as their names hold them.
    static let namedModels = [
        "H5108", "H5100", "H5101", "H5102", "H5103", "H5104", "H5105", "H5174", "H5177", "H5110", "GV5179",
    ]
    /// Names of other models with eight bytes under the same id.
    static let otherEightByteModels = ["5140", "GV5112", "H5112"]

    /// The family: no counter.
    public static let family = SensorFamily(
        id: "govee-h5100", name: "Govee H5100/H5101/H5102/H5103/H5104/H5105/H5108/H5110/H5174/H5177/GV5179",
        manufacturer: "Govee",
        models: ["H5100", "H5101", "H5102", "H5103", "H5104", "H5105", "H5108", "H5110", "H5174", "H5177", "GV5179"],
        quantities: [.temperature, .humidity, .battery])
    /// Manufacturer data 0x0001.
    public let fields: [AdvertisementField] = [.manufacturerData(Self.companyID)]

    /// Creates the profile.
    public init() {}

    /// Decodes 6 bytes from a device named as one of the models, or 8 from any but an H5140
    /// or H5112; anything else is nobody's.
    public func decode(
        _ payload: [UInt8], in field: AdvertisementField, context: AdvertisementContext,
        from address: BluetoothAddress, keyring: inout AdvertisementKeyring
    ) -> Result<AdvertisementReading, ReadingError>? {
        let name = context.name ?? ""
        switch payload.count {
        case 6 where Self.namedModels.contains(where: name.contains): break
        case 8 where !Self.otherEightByteModels.contains(where: name.contains): break
        default: return nil
        }
        return catchingReadingError { () throws(ReadingError) in
            var builder = QuantitiesBuilder(profile: Self.family.id, raw: payload)
            builder.modelIndex = Self.family.modelIndex(named: name)
            try GoveePackedMeasurement.add(payload, at: 2, to: &builder)
            return try builder.reading(counter: nil, counterModulus: nil)
        }
    }
}

/// Govee's packed measurement in four bytes, as govee-ble's `decode_temp_humid_battery_error`
/// reads it (H5100 and its kin, B5178).
///
/// The first three are a big-endian 24-bit value whose bit 23 is the sign; with `v` the other
/// 23 bits, the temperature is `int(v / 1000) / 10` °C and the humidity `(v % 1000) / 10` %.
/// The fourth is the battery in % (its low 7 bits) with the error flag in its high bit. With
/// the flag set, or a temperature outside -40…100 °C, only the battery is reported.
enum GoveePackedMeasurement {
    /// The temperatures the library reports, in tenths of a degree.
    static let reportedTenths = -400...1000

    /// Adds the measurement at `offset` (four bytes) to `builder`.
    static func add(_ payload: [UInt8], at offset: Int, to builder: inout QuantitiesBuilder) throws(ReadingError) {
        let packed = payload.unsignedBigEndian(at: offset, count: 3)
        let value = packed & 0x7F_FFFF
        let tenths = packed & 0x80_0000 != 0 ? -(value / 1000) : value / 1000
        let battery = payload[offset + 3]
        if battery & 0x80 == 0, reportedTenths.contains(tenths) {
            try builder.add(.temperature, tenths, per: 10)
            try builder.add(.humidity, value % 1000, per: 10)
        }
        try builder.add(.battery, Int(battery & 0x7F))
    }
}
