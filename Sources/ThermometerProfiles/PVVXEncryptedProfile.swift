public import SensorModel

/// The encrypted custom formats of the pvvx ATC_MiThermometer firmware ("energy efficient,
/// low security", bind key per device): service data 0x181A, 11 or 8 bytes. No Home
/// Assistant library decodes them; this follows the firmware's source (`custom_beacon.c`,
/// `custom_beacon.h`, 2026-05 revision 7363cc8), checked against the published vector of
/// Passive BLE Monitor (a custom component, not Home Assistant's).
///
/// Byte 0 is the measurement counter; then the ciphertext and a 4-byte tag: AES-128-CCM with
/// the device's bind key, the associated data `0x11`, and the nonce of the device's address
/// (least significant byte first) and the five bytes of the advertisement structure's
/// header: its length (`0E` or `0B`), `16`, `1A 18` and the counter. The 11-byte custom
/// variant decrypts to temperature sint16 × 0.01 °C, humidity uint16 × 0.01 %, battery uint8
/// % and trigger flags; the 8-byte atc1441 variant to temperature in half degrees from
/// -40 °C, humidity in half percents, battery % in the low 7 bits (bit 7: the trigger). The
/// key is the bind key the firmware uses for all its encrypted formats: `bthome_key`,
/// `mibeacon_key` or a key file give it. The counter is one byte, not checked for replays
/// (it wraps every 256 measurements); the tag authenticates the reading. Other lengths of
/// 0x181A are not these formats (pvvx's plain 15 bytes, ATC1441's 13).
public struct PVVXEncryptedProfile: AdvertisementProfile {
    /// The custom variant's payload length.
    public static let customLength = 11
    /// The atc1441 variant's payload length.
    public static let atcLength = 8

    /// The family: the firmware's thermometers, a one-byte counter; a key is required.
    public static let family = SensorFamily(
        id: "pvvx-encrypted", name: "pvvx custom, encrypted (ATC_MiThermometer)",
        manufacturer: "Xiaomi (custom firmware)", models: ["LYWSD03MMC", "MHO-C401", "CGG1", "CGDK2"],
        quantities: [.temperature, .humidity, .battery], counterModulus: 1 << 8, key: .required)
    /// Service data 0x181A, shared with ``PVVXProfile`` and ``ATC1441Profile``.
    public let fields: [AdvertisementField] = [.serviceData(PVVXProfile.serviceUUID)]

    /// Creates the profile.
    public init() {}

    /// Decrypts an 11- or 8-byte payload with the sender's key; `nil` for any other length.
    public func decode(
        _ payload: [UInt8], from address: BluetoothAddress, keyring: inout AdvertisementKeyring
    ) -> Result<AdvertisementReading, ReadingError>? {
        guard payload.count == Self.customLength || payload.count == Self.atcLength else { return nil }
        return catchingReadingError { () throws(ReadingError) in
            let key = try keyring.key(for: address, raw: payload, format: "pvvx")
            let tagStart = payload.count - AESCCM.tagLength
            // The advertisement structure's length byte: UUID type, UUID, then the payload.
            let header: [UInt8] = [UInt8(3 + payload.count), 0x16, 0x1A, 0x18, payload[0]]
            guard
                let data = AESCCM.open(
                    payload[1..<tagStart], tag: payload[tagStart...], nonce: address.bytes.reversed() + header,
                    associatedData: [0x11], key: key)
            else {
                throw ReadingError(
                    .decryptionFailed, raw: payload,
                    detail: "the packet does not authenticate with the key configured for \(address)")
            }
            var builder = QuantitiesBuilder(profile: id, raw: payload)
            if payload.count == Self.customLength {
                try builder.add(.temperature, data.signedLittleEndian(at: 0, count: 2), per: 100)
                try builder.add(.humidity, data.unsignedLittleEndian(at: 2, count: 2), per: 100)
                try builder.add(.battery, Int(data[4]))
            } else {
                try builder.add(.temperature, Int(data[0]) - 80, per: 2)
                try builder.add(.humidity, Int(data[1]), per: 2)
                try builder.add(.battery, Int(data[2] & 0x7F))
            }
            return try builder.reading(
                counter: UInt32(payload[0]), counterModulus: Self.family.counterModulus, isAuthenticated: true)
        }
    }
}
