public import SensorModel

/// The pvvx "custom" format of the ATC_MiThermometer firmware (Xiaomi LYWSD03MMC and kin):
/// service data 0x181A, 15 bytes, little-endian.
///
/// Address (6 bytes, least significant first), temperature sint16 × 0.01 °C, humidity
/// uint16 × 0.01 %, battery uint16 mV, battery uint8 %, frame counter uint8, flags uint8.
/// Other lengths of 0x181A service data are not this format (ATC1441 is 13 bytes).
public struct PVVXProfile: AdvertisementProfile {
    /// The Environmental Sensing service UUID the firmware puts its data under, 0x181A.
    public static let serviceUUID = BluetoothUUID(UInt16(0x181A))
    /// The payload's length.
    public static let payloadLength = 15

    /// The family: Xiaomi-made thermometers running the pvvx firmware, one-byte frame counter.
    public static let family = SensorFamily(
        id: "pvvx", name: "pvvx custom (ATC_MiThermometer)", manufacturer: "Xiaomi (custom firmware)",
        models: ["LYWSD03MMC", "MHO-C401", "CGG1", "CGDK2"],
        quantities: [.temperature, .humidity, .battery, .voltage], counterModulus: 1 << 8)
    /// Service data 0x181A.
    public let fields: [AdvertisementField] = [.serviceData(Self.serviceUUID)]

    /// Creates the profile.
    public init() {}

    /// Decodes a 15-byte payload; `nil` for any other length.
    public func decode(
        _ payload: [UInt8], from address: BluetoothAddress, keyring: inout AdvertisementKeyring
    ) -> Result<AdvertisementReading, ReadingError>? {
        decodeFixedLength(payload, length: Self.payloadLength, family: Self.family) { builder throws(ReadingError) in
            try builder.add(.temperature, payload.signedLittleEndian(at: 6, count: 2), per: 100)
            try builder.add(.humidity, payload.unsignedLittleEndian(at: 8, count: 2), per: 100)
            try builder.add(.voltage, payload.unsignedLittleEndian(at: 10, count: 2), per: 1000)
            try builder.add(.battery, Int(payload[12]))
            return UInt32(payload[13])
        }
    }
}
