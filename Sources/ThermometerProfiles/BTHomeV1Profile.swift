public import SensorModel

/// BTHome v1, the legacy format: service data 0x181C (plain) or 0x181E (encrypted), objects
/// with a control byte each, as Home Assistant's bthome-ble decodes them.
///
/// An object is a control byte (bits 0-4: the length of what follows it, the type byte
/// included; bits 5-7: the data format, 0 unsigned and 1 signed little-endian integer, 2
/// float, 3 text, 4 raw), the object type (BTHome v2's ids, the same factors:
/// ``BTHomeObjects``), then the data. Integer objects of the quantities measured here are
/// read (of up to 4 bytes); float, text and raw ones are skipped (no thermometer sends
/// them), as are other types. An object that runs past the end, or announces no type, is
/// ``ReadingError/Kind/malformed`` (the library keeps the objects before it). A plain
/// reading's counter is its packet id object (0x00).
///
/// An encrypted packet (0x181E) is the ciphertext, a 4-byte little-endian counter and a
/// 4-byte tag: AES-128-CCM with the associated data `0x11` and the nonce of the sender's
/// address (as written), `1E 18` and the counter, the key BTHome v2's (`bthome_key`). The
/// counter, checked by the keyring's ``ReplayGuard``, is the reading's counter. A device with
/// a key that sends plain data is refused (``ReadingError/Kind/unencrypted``).
public struct BTHomeV1Profile: ContextualAdvertisementProfile {
    /// The plain format's service data UUID, 0x181C.
    public static let plainUUID = BluetoothUUID(UInt16(0x181C))
    /// The encrypted format's service data UUID, 0x181E.
    public static let encryptedUUID = BluetoothUUID(UInt16(0x181E))
    /// The shortest ciphertext the library decrypts.
    static let minimumCiphertext = 4

    /// The family: a one-byte packet id in plain packets (encrypted ones count with their
    /// four-byte counter); a key is optional, and required once configured.
    public static let family = SensorFamily(
        id: "bthome-v1", name: "BTHome v1", manufacturer: "BTHome", models: ["BTHome v1"],
        quantities: [.temperature, .humidity, .battery, .pressure, .voltage, .co2, .dewPoint], counterModulus: 1 << 8,
        key: .optional)
    /// Service data 0x181C and 0x181E.
    public let fields: [AdvertisementField] = [.serviceData(Self.plainUUID), .serviceData(Self.encryptedUUID)]

    /// Creates the profile.
    public init() {}

    /// Decodes a plain packet (0x181C) or decrypts an encrypted one (0x181E) with the sender's key.
    public func decode(
        _ payload: [UInt8], in field: AdvertisementField, context: AdvertisementContext,
        from address: BluetoothAddress, keyring: inout AdvertisementKeyring
    ) -> Result<AdvertisementReading, ReadingError>? {
        catchingReadingError { () throws(ReadingError) in
            var builder = QuantitiesBuilder(profile: id, raw: payload)
            guard field == .serviceData(Self.encryptedUUID) else {
                if let error = keyring.downgradeError(from: address, raw: payload, format: "BTHome v1") { throw error }
                let packetID = try Self.decodeObjects(payload, into: &builder, location: "")
                guard !builder.isEmpty else { return nil }
                return try builder.reading(
                    counter: packetID.map(UInt32.init), counterModulus: Self.family.counterModulus)
            }
            let (plaintext, counter) = try decrypt(payload, from: address, keyring: &keyring)
            _ = try Self.decodeObjects(plaintext, into: &builder, location: " of the decrypted data")
            guard !builder.isEmpty else { return nil }
            return try builder.reading(counter: counter, counterModulus: 1 << 32, isAuthenticated: true)
        }
    }

    /// Authenticates and decrypts an encrypted packet and admits its counter.
    private func decrypt(
        _ payload: [UInt8], from address: BluetoothAddress, keyring: inout AdvertisementKeyring
    ) throws(ReadingError) -> (objects: [UInt8], counter: UInt32) {
        let trailer = 4 + AESCCM.tagLength
        guard payload.count >= Self.minimumCiphertext + trailer else {
            throw ReadingError(
                .malformed, raw: payload,
                detail: "an encrypted BTHome v1 packet needs at least \(Self.minimumCiphertext + trailer) bytes, "
                    + "got \(payload.count)")
        }
        let key = try keyring.key(for: address, raw: payload, format: "BTHome v1")
        let counterStart = payload.count - trailer
        let nonce = address.bytes + [0x1E, 0x18] + payload[counterStart..<counterStart + 4]
        guard
            let plaintext = AESCCM.open(
                payload[..<counterStart], tag: payload[(counterStart + 4)...], nonce: nonce, associatedData: [0x11],
                key: key)
        else {
            throw ReadingError(
                .decryptionFailed, raw: payload,
                detail: "the packet does not authenticate with the key configured for \(address)")
        }
        let counter = UInt32(payload.unsignedLittleEndian(at: counterStart, count: 4))
        try keyring.admitFresh(counter, from: address, raw: payload)
        return (plaintext, counter)
    }

    /// Decodes the objects of `data` into `builder`; the first of a quantity wins.
    ///
    /// - Returns: The packet id, if the packet has one.
    static func decodeObjects(
        _ data: [UInt8], into builder: inout QuantitiesBuilder, location: String
    ) throws(ReadingError) -> UInt8? {
        var packetID: UInt8?
        var index = 0
        while index < data.count {
            let length = Int(data[index] & 0x1F)
            let format = data[index] >> 5
            guard length >= 1, index + 1 + length <= data.count else {
                throw ReadingError(
                    .malformed, raw: builder.raw,
                    detail: "the object at offset \(index)\(location) announces \(length) bytes, "
                        + "\(data.count - index - 1) left")
            }
            let type = data[index + 1]
            let start = index + 2
            let count = length - 1
            index += 1 + length
            // Integers of up to 4 bytes (no quantity's object is longer; none can overflow).
            guard format <= 1, (1...4).contains(count) else { continue }
            if type == BTHomeObjects.packetIDObject, packetID == nil { packetID = data[start] }
            guard let scale = BTHomeObjects.scale(of: type) else { continue }
            let value =
                format == 1
                ? data.signedLittleEndian(at: start, count: count) : data.unsignedLittleEndian(at: start, count: count)
            try builder.add(scale.quantity, value, times: scale.numerator, per: scale.denominator)
        }
        return packetID
    }
}
