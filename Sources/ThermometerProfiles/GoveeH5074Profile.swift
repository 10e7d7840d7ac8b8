public import SensorModel

/// Govee H5074: manufacturer data 0xEC88, 7 bytes, little-endian, in the scan response.
///
/// Temperature sint16 × 0.01 °C at byte 1, humidity uint16 × 0.01 % at byte 3, battery
/// uint8 % at byte 5. Other lengths are not this format (H5075 is 6 bytes). No counter.
public struct GoveeH5074Profile: AdvertisementProfile {
    /// The payload's length.
    public static let payloadLength = 7

    /// The family: no counter, data in the scan response.
    public static let family = SensorFamily(
        id: "govee-h5074", name: "Govee H5074", manufacturer: "Govee", models: ["H5074"],
        quantities: [.temperature, .humidity, .battery], needsActiveScanning: true)
    /// Manufacturer data 0xEC88, shared with ``GoveeH5075Profile``.
    public let fields: [AdvertisementField] = [.manufacturerData(GoveeH5075Profile.companyID)]

    /// Creates the profile.
    public init() {}

    /// Decodes a 7-byte payload; `nil` for any other length.
    public func decode(
        _ payload: [UInt8], from address: BluetoothAddress, keyring: inout AdvertisementKeyring
    ) -> Result<AdvertisementReading, ReadingError>? {
        decodeFixedLength(payload, length: Self.payloadLength, family: Self.family) { builder throws(ReadingError) in
            try Self.addMeasurement(payload, at: 1, to: &builder)
            return nil
        }
    }

    /// Adds the five bytes at `offset`: temperature sint16 × 0.01 °C, humidity uint16 × 0.01 %,
    /// battery uint8 %, little-endian (this layout, which H5051 and H5179 share at other offsets).
    static func addMeasurement(
        _ payload: [UInt8], at offset: Int, to builder: inout QuantitiesBuilder
    ) throws(ReadingError) {
        try builder.add(.temperature, payload.signedLittleEndian(at: offset, count: 2), per: 100)
        try builder.add(.humidity, payload.unsignedLittleEndian(at: offset + 2, count: 2), per: 100)
        try builder.add(.battery, Int(payload[offset + 4]))
    }
}
