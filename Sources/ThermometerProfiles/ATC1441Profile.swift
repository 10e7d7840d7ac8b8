public import SensorModel

/// The atc1441 format of the ATC_MiThermometer firmware: service data 0x181A, 13 bytes,
/// big-endian.
///
/// Address (6 bytes, as written), temperature sint16 × 0.1 °C, humidity uint8 %, battery
/// uint8 %, battery uint16 mV, frame counter uint8. Other lengths of 0x181A service data are
/// not this format (pvvx is 15 bytes).
public struct ATC1441Profile: AdvertisementProfile {
    /// The payload's length.
    public static let payloadLength = 13

    /// The family: Xiaomi LYWSD03MMC on the ATC_MiThermometer firmware, one-byte frame counter.
    public static let family = SensorFamily(
        id: "atc1441", name: "atc1441 (ATC_MiThermometer)", manufacturer: "Xiaomi (custom firmware)",
        models: ["LYWSD03MMC"], quantities: [.temperature, .humidity, .battery, .voltage], counterModulus: 1 << 8)
    /// Service data 0x181A, shared with ``PVVXProfile``.
    public let fields: [AdvertisementField] = [.serviceData(PVVXProfile.serviceUUID)]

    /// Creates the profile.
    public init() {}

    /// Decodes a 13-byte payload; `nil` for any other length.
    public func decode(
        _ payload: [UInt8], from address: BluetoothAddress, keyring: inout AdvertisementKeyring
    ) -> Result<AdvertisementReading, ReadingError>? {
        decodeFixedLength(payload, length: Self.payloadLength, family: Self.family) { builder throws(ReadingError) in
            try builder.add(.temperature, payload.signedBigEndian(at: 6, count: 2), per: 10)
            try builder.add(.humidity, Int(payload[8]))
            try builder.add(.battery, Int(payload[9]))
            try builder.add(.voltage, payload.unsignedBigEndian(at: 10, count: 2), per: 1000)
            return UInt32(payload[12])
        }
    }
}
