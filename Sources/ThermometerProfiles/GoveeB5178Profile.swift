public import SensorModel

/// Govee B5178 (H5178): manufacturer data 0x0001, 9 bytes, as Home Assistant's govee-ble reads
/// them.
///
/// Byte 2 tells which sensor measured: 0 the display unit itself, 1 its remote sensor; bytes
/// 3-6 are ``GoveePackedMeasurement``'s. The library shows the remote as a second device;
/// blectl has one reading per address, so the remote's advertisements are not read (they
/// would interleave another room's values with the unit's). Other sensor ids the library
/// reads as the unit's, and so does this. Other lengths are not this format. No counter.
public struct GoveeB5178Profile: AdvertisementProfile {
    /// The payload's length.
    public static let payloadLength = 9
    /// Byte 2's value of the remote sensor.
    static let remoteSensor: UInt8 = 1

    /// The family: no counter.
    public static let family = SensorFamily(
        id: "govee-b5178", name: "Govee B5178", manufacturer: "Govee", models: ["B5178", "H5178"],
        quantities: [.temperature, .humidity, .battery])
    /// Manufacturer data 0x0001, shared with ``GoveeH5100Profile``.
    public let fields: [AdvertisementField] = [.manufacturerData(GoveeH5100Profile.companyID)]

    /// Creates the profile.
    public init() {}

    /// Decodes the unit's 9-byte payload; `nil` for any other length and for the remote sensor's.
    public func decode(
        _ payload: [UInt8], from address: BluetoothAddress, keyring: inout AdvertisementKeyring
    ) -> Result<AdvertisementReading, ReadingError>? {
        guard payload.count != Self.payloadLength || payload[2] != Self.remoteSensor else { return nil }
        return decodeFixedLength(payload, length: Self.payloadLength, family: Self.family) {
            builder throws(ReadingError) in
            try GoveePackedMeasurement.add(payload, at: 3, to: &builder)
            return nil
        }
    }
}
