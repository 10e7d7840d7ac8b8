public import SensorModel

/// Govee H5179: manufacturer data 0x8801, 9 bytes, little-endian, in the scan response, as
/// Home Assistant's govee-ble reads it.
///
/// Bytes 0-3 are constant (`EC 00 01 01`); temperature sint16 × 0.01 °C at byte 4, humidity
/// uint16 × 0.01 % at byte 6, battery uint8 % at byte 8. Other lengths are not this format.
/// No counter. (Newer H5179s, named `GV5179…`, send ``GoveeH5100Profile``'s format.)
public struct GoveeH5179Profile: AdvertisementProfile {
    /// The id BlueZ reads from the first two bytes (a flags byte and 0x88, not a company).
    public static let companyID: UInt16 = 0x8801
    /// The payload's length.
    public static let payloadLength = 9

    /// The family: no counter, data in the scan response.
    public static let family = SensorFamily(
        id: "govee-h5179", name: "Govee H5179", manufacturer: "Govee", models: ["H5179"],
        quantities: [.temperature, .humidity, .battery], needsActiveScanning: true)
    /// Manufacturer data 0x8801.
    public let fields: [AdvertisementField] = [.manufacturerData(Self.companyID)]

    /// Creates the profile.
    public init() {}

    /// Decodes a 9-byte payload; `nil` for any other length.
    public func decode(
        _ payload: [UInt8], from address: BluetoothAddress, keyring: inout AdvertisementKeyring
    ) -> Result<AdvertisementReading, ReadingError>? {
        decodeFixedLength(payload, length: Self.payloadLength, family: Self.family) { builder throws(ReadingError) in
            try GoveeH5074Profile.addMeasurement(payload, at: 4, to: &builder)
            return nil
        }
    }
}
