public import SensorModel

/// Govee H5106 (an air-quality monitor's thermo-hygrometer): manufacturer data 0x0001, 6
/// bytes, from a device whose local name holds `H5106`, as Home Assistant's govee-ble reads it.
///
/// Bytes 2-5 are a big-endian 32-bit value whose bit 31 is the temperature's sign; with `v`
/// the other 31 bits, the temperature is `int(v / 1000000) / 10` °C, the humidity
/// `int(v % 1000000 / 1000) / 10` % and the PM2.5 `v % 1000` µg/m³ (no quantity of blectl's:
/// left out). No battery, no counter.
public struct GoveeH5106Profile: ContextualAdvertisementProfile {
    /// The payload's length.
    public static let payloadLength = 6

    /// The family: no counter.
    public static let family = SensorFamily(
        id: "govee-h5106", name: "Govee H5106", manufacturer: "Govee", models: ["H5106"],
        quantities: [.temperature, .humidity])
    /// Manufacturer data 0x0001, shared with ``GoveeH5100Profile``.
    public let fields: [AdvertisementField] = [.manufacturerData(GoveeH5100Profile.companyID)]

    /// Creates the profile.
    public init() {}

    /// Decodes 6 bytes from a device named `…H5106…`; anything else is nobody's.
    public func decode(
        _ payload: [UInt8], in field: AdvertisementField, context: AdvertisementContext,
        from address: BluetoothAddress, keyring: inout AdvertisementKeyring
    ) -> Result<AdvertisementReading, ReadingError>? {
        guard context.name?.contains("H5106") == true else { return nil }
        return decodeFixedLength(payload, length: Self.payloadLength, family: Self.family) {
            builder throws(ReadingError) in
            let packed = payload.unsignedBigEndian(at: 2, count: 4)
            let value = packed & 0x7FFF_FFFF
            let tenths = value / 1_000_000
            try builder.add(.temperature, packed & 0x8000_0000 != 0 ? -tenths : tenths, per: 10)
            try builder.add(.humidity, value % 1_000_000 / 1000, per: 10)
            return nil
        }
    }
}
