public import SensorModel

/// Govee H5072 and H5075: manufacturer data 0xEC88, 6 bytes, in the scan response.
///
/// Bytes 1-3 are a big-endian 24-bit value whose bit 23 is the sign; with `v` the other 23
/// bits, the temperature is `int(v / 1000) / 10` °C and the humidity `(v % 1000) / 10` %.
/// Byte 4 is the battery in % (its low 7 bits); its high bit is the sensor's error flag, and
/// then the temperature and humidity are not reported, only the battery (as Home Assistant's
/// govee-ble reads it). Other lengths are not this format (H5074 is 7 bytes). Govee sends no
/// counter.
public struct GoveeH5075Profile: AdvertisementProfile {
    /// Govee's identifier in its manufacturer data.
    public static let companyID: UInt16 = 0xEC88
    /// The payload's length.
    public static let payloadLength = 6

    /// The family: no counter, data in the scan response.
    public static let family = SensorFamily(
        id: "govee-h5075", name: "Govee H5072/H5075", manufacturer: "Govee", models: ["H5075", "H5072"],
        quantities: [.temperature, .humidity, .battery], needsActiveScanning: true)
    /// Manufacturer data 0xEC88.
    public let fields: [AdvertisementField] = [.manufacturerData(Self.companyID)]

    /// Creates the profile.
    public init() {}

    /// Decodes a 6-byte payload; `nil` for any other length.
    public func decode(
        _ payload: [UInt8], from address: BluetoothAddress, keyring: inout AdvertisementKeyring
    ) -> Result<AdvertisementReading, ReadingError>? {
        decodeFixedLength(payload, length: Self.payloadLength, family: Self.family) { builder throws(ReadingError) in
            if payload[4] & 0x80 == 0 {
                let packed = payload.unsignedBigEndian(at: 1, count: 3)
                let value = packed & 0x7F_FFFF
                let tenths = value / 1000
                try builder.add(.temperature, packed & 0x80_0000 != 0 ? -tenths : tenths, per: 10)
                try builder.add(.humidity, value % 1000, per: 10)
            }
            try builder.add(.battery, Int(payload[4] & 0x7F))
            return nil
        }
    }
}
