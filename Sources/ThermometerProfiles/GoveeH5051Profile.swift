public import SensorModel

/// Govee H5051, H5052 and H5071: manufacturer data 0xEC88, 9 bytes, little-endian, as Home
/// Assistant's govee-ble reads them.
///
/// Temperature sint16 × 0.01 °C at byte 1, humidity uint16 × 0.01 % at byte 3, battery uint8
/// % at byte 5 (H5074's layout, two bytes longer). Other lengths are not this format (H5075
/// is 6 bytes, H5074 7). No counter; the data is in the advertisement itself.
public struct GoveeH5051Profile: AdvertisementProfile {
    /// The payload's length.
    public static let payloadLength = 9

    /// The family: no counter.
    public static let family = SensorFamily(
        id: "govee-h5051", name: "Govee H5051/H5052/H5071", manufacturer: "Govee", models: ["H5051", "H5052", "H5071"],
        quantities: [.temperature, .humidity, .battery])
    /// Manufacturer data 0xEC88, shared with ``GoveeH5075Profile``.
    public let fields: [AdvertisementField] = [.manufacturerData(GoveeH5075Profile.companyID)]

    /// Creates the profile.
    public init() {}

    /// Decodes a 9-byte payload; `nil` for any other length.
    public func decode(
        _ payload: [UInt8], from address: BluetoothAddress, keyring: inout AdvertisementKeyring
    ) -> Result<AdvertisementReading, ReadingError>? {
        decodeFixedLength(payload, length: Self.payloadLength, family: Self.family) { builder throws(ReadingError) in
            try GoveeH5074Profile.addMeasurement(payload, at: 1, to: &builder)
            return nil
        }
    }
}
