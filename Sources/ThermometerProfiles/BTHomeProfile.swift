public import SensorModel

/// BTHome v2 (bthome.io): service data 0xFCD2, a device-information byte, then objects.
///
/// The device-information byte: bit 0 encrypted, bit 1 the device's address follows (6
/// bytes, least significant first), bit 2 trigger-based, bits 5-7 the version, which must
/// be 2. Objects are decoded by ``BTHomeObjects``; an unencrypted reading's counter is its
/// packet id object (0x00), if it has one.
///
/// Encrypted packets (AES-128-CCM, 4-byte tag) are ciphertext, a 4-byte little-endian
/// counter and the tag; the nonce is the address (as written), `D2 FC`, the device
/// information byte and the counter. That address is the one inside the packet when bit 1
/// says so (devices with random addresses), else the sender's; it also picks the key. The
/// counter, checked by the keyring's ``ReplayGuard``, is the reading's counter. A device
/// with a key that sends unencrypted data is refused (``ReadingError/Kind/unencrypted``).
public struct BTHomeProfile: AdvertisementProfile {
    /// The BTHome service data UUID, 0xFCD2.
    public static let serviceUUID = BluetoothUUID(UInt16(0xFCD2))

    /// The family: a one-byte packet id in plain packets (encrypted ones count with their
    /// four-byte encryption counter); a key is optional, and required once configured.
    public static let family = SensorFamily(
        id: "bthome", name: "BTHome v2", manufacturer: "BTHome", models: ["BTHome v2"],
        quantities: [.temperature, .humidity, .battery, .pressure, .voltage, .co2, .dewPoint], counterModulus: 1 << 8,
        key: .optional)
    /// Service data 0xFCD2.
    public let fields: [AdvertisementField] = [.serviceData(Self.serviceUUID)]

    /// Creates the profile.
    public init() {}

    /// Decodes a BTHome v2 packet, decrypting it with the device's key when it is encrypted.
    public func decode(
        _ payload: [UInt8], from address: BluetoothAddress, keyring: inout AdvertisementKeyring
    ) -> Result<AdvertisementReading, ReadingError>? {
        catchingReadingError { () throws(ReadingError) in
            let header = try Header(payload, sender: address)
            var builder = QuantitiesBuilder(profile: id, raw: payload)
            guard header.isEncrypted else {
                if let error = keyring.downgradeError(from: header.device, raw: payload, format: "BTHome") {
                    throw error
                }
                let packetID = try BTHomeObjects.decode(payload, from: header.length, into: &builder, location: "")
                return try reading(builder, counter: packetID.map(UInt32.init), isAuthenticated: false)
            }
            let (plaintext, counter) = try decrypt(payload, header, keyring: &keyring)
            _ = try BTHomeObjects.decode(plaintext, from: 0, into: &builder, location: " of the decrypted data")
            return try reading(builder, counter: counter, isAuthenticated: true)
        }
    }

    /// The reading of what `builder` collected; `nil` when the packet had nothing measured here.
    private func reading(_ builder: QuantitiesBuilder, counter: UInt32?, isAuthenticated: Bool)
        throws(ReadingError) -> AdvertisementReading?
    {
        guard !builder.isEmpty else { return nil }
        return try builder.reading(
            counter: counter, counterModulus: isAuthenticated ? 1 << 32 : Self.family.counterModulus,
            isAuthenticated: isAuthenticated)
    }

    /// Authenticates and decrypts an encrypted packet and admits its counter.
    ///
    /// - Returns: The objects in plain text and the packet's counter.
    private func decrypt(
        _ payload: [UInt8], _ header: Header, keyring: inout AdvertisementKeyring
    ) throws(ReadingError) -> (objects: [UInt8], counter: UInt32) {
        let trailer = 4 + AESCCM.tagLength
        guard payload.count >= header.length + 1 + trailer else {
            throw ReadingError(
                .malformed, raw: payload,
                detail: "an encrypted BTHome packet needs at least \(header.length + 1 + trailer) bytes, "
                    + "got \(payload.count)")
        }
        let key = try keyring.key(for: header.device, raw: payload, format: "BTHome")
        let counterStart = payload.count - trailer
        let counterBytes = payload[counterStart..<counterStart + 4]
        let nonce = header.device.bytes + [0xD2, 0xFC, payload[0]] + counterBytes
        guard
            let plaintext = AESCCM.open(
                payload[header.length..<counterStart], tag: payload[(counterStart + 4)...], nonce: nonce, key: key)
        else {
            throw ReadingError(
                .decryptionFailed, raw: payload,
                detail: "the packet does not authenticate with the key configured for \(header.device)")
        }
        let counter = UInt32(payload.unsignedLittleEndian(at: counterStart, count: 4))
        try keyring.admitFresh(counter, from: header.device, raw: payload)
        return (plaintext, counter)
    }

    /// The device-information byte and the address that may follow it.
    private struct Header {
        /// Whether the objects are encrypted (bit 0).
        var isEncrypted: Bool
        /// The device: the address inside the packet (bit 1), else the sender.
        var device: BluetoothAddress
        /// Where the objects (or the ciphertext) start.
        var length: Int

        init(_ payload: [UInt8], sender: BluetoothAddress) throws(ReadingError) {
            guard let information = payload.first else { throw ReadingError(.empty, raw: payload) }
            let version = information >> 5
            guard version == 2 else {
                throw ReadingError(
                    .unsupportedVersion, raw: payload, detail: "BTHome version \(version); only version 2 is decoded")
            }
            isEncrypted = information & 0x01 != 0
            guard information & 0x02 != 0 else {
                device = sender
                length = 1
                return
            }
            guard payload.count >= 7 else {
                throw ReadingError(
                    .malformed, raw: payload,
                    detail: "the device information announces a 6-byte address, got \(payload.count - 1) bytes")
            }
            device = BluetoothAddress(bytes: payload[1..<7].reversed())
            length = 7
        }
    }
}

extension AdvertisementKey {
    /// A BTHome key: 32 hex digits (16 bytes), as `bthome_key` lines give it.
    public static func bthome(hex text: some StringProtocol) throws(ParseError) -> AdvertisementKey {
        try AdvertisementKey(hex: text, format: "BTHome", byteCounts: [16])
    }
}
