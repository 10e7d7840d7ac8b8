public import SensorModel

/// Xiaomi MiBeacon: service data 0xFE95, versions 2 to 5, plain or encrypted with the
/// device's bind key, as the stock firmware of Xiaomi's thermometers sends it.
///
/// The frame: frame control (uint16 LE: bit 3 encrypted, bit 4 the address follows, bit 5 a
/// capability byte follows, bit 6 objects follow, bit 7 mesh, bits 12-15 the version), the
/// product id (uint16 LE), a frame counter (uint8), then the address (6 bytes, least
/// significant first), the capability (and an I/O byte when its bit 5 is set), and the
/// objects: id (uint16 LE), length (uint8), data.
///
/// Encryption (the device's bind key, `mibeacon_key`):
/// - v4/v5: AES-128-CCM over the objects, then a 3-byte counter extension and a 4-byte tag;
///   the nonce is the address (least significant first), the product id, the frame counter
///   and the extension; associated data `0x11`. The 32-bit counter (frame counter and
///   extension) is replay-checked like BTHome's.
/// - v2/v3: the same cipher with a 12-byte key (expanded to 16 with `8d3d3c97` in the middle),
///   the nonce the first five bytes, three bytes from the end and five of the address; the
///   tag cannot be checked, so a wrong key shows as objects that do not parse.
///
/// Objects read (as Home Assistant's xiaomi-ble reads them): 0x1004 temperature (sint16 ×
/// 0.1 °C), 0x1006 humidity (uint16 × 0.1 %; whole percents on the LYWSD03MMC and MHO-C401,
/// whose tenths step unevenly), 0x100A battery (%), 0x100D temperature and humidity, 0x4803
/// and 0x4C03 battery, 0x4C01 temperature and 0x4C08 humidity (float32), 0x4C02 humidity
/// (%). Other objects are skipped. Mesh frames, versions below 2, product ids of devices that
/// are not thermometers and frames without objects are not readings (`nil`). Home
/// Assistant also reports a battery voltage it computes from the percentage; blectl reports
/// only what the sensor sent.
public struct XiaomiMiBeaconProfile: AdvertisementProfile {
    /// Xiaomi's service data UUID, 0xFE95.
    public static let serviceUUID = BluetoothUUID(UInt16(0xFE95))

    /// The thermometers by product id (Home Assistant's xiaomi-ble device table).
    public static let models: [UInt16: String] = [
        0x01AA: "LYWSDCGQ", 0x045B: "LYWSD02", 0x16E4: "LYWSD02MMC", 0x2542: "LYWSD02MMC",
        0x055B: "LYWSD03MMC", 0x0387: "MHO-C401", 0x06D3: "MHO-C303", 0x0347: "CGG1", 0x0B48: "CGG1-ENCRYPTED",
        0x066F: "CGDK2", 0x2832: "MJWSD05MMC", 0x4C47: "MJWSD05MMC", 0x55B5: "MJWSD06MMC", 0x5BEA: "MJWSD06MMC",
        0x1203: "XMWSDJ04MMC",
    ]

    /// The family: a one-byte frame counter in plain frames (encrypted v4/v5 ones count with
    /// 32 bits); a bind key where the firmware encrypts.
    public static let family = SensorFamily(
        id: "mibeacon", name: "Xiaomi MiBeacon", manufacturer: "Xiaomi",
        models: [
            "LYWSD03MMC", "LYWSDCGQ", "LYWSD02", "LYWSD02MMC", "MHO-C401", "MHO-C303", "CGG1", "CGDK2", "MJWSD05MMC",
            "MJWSD06MMC", "XMWSDJ04MMC",
        ],
        quantities: [.temperature, .humidity, .battery], counterModulus: 1 << 8, key: .optional)

    /// Service data 0xFE95.
    public let fields: [AdvertisementField] = [.serviceData(Self.serviceUUID)]

    /// Creates the profile.
    public init() {}

    /// Decodes a MiBeacon frame, decrypting it with the device's key when it is encrypted.
    public func decode(
        _ payload: [UInt8], from address: BluetoothAddress, keyring: inout AdvertisementKeyring
    ) -> Result<AdvertisementReading, ReadingError>? {
        catchingReadingError { () throws(ReadingError) in
            guard let frame = try MiBeaconFrame(payload, sender: address), let model = Self.models[frame.productID],
                frame.hasObjects
            else { return nil }
            var builder = QuantitiesBuilder(profile: Self.family.id, raw: payload)
            builder.modelIndex = Self.family.modelIndex(of: model)
            guard frame.isEncrypted else {
                if let error = keyring.downgradeError(from: address, raw: payload, format: "MiBeacon") { throw error }
                try MiBeaconObjects.read(payload[frame.length...], model: model, into: &builder, raw: payload)
                return try reading(builder, counter: UInt32(frame.frameCounter), modulus: Self.family.counterModulus)
            }
            let (objects, counter) = try MiBeaconCipher.open(payload, frame, keyring: &keyring)
            do throws(ReadingError) {
                try MiBeaconObjects.read(objects[...], model: model, into: &builder, raw: payload)
            } catch {
                // v2/v3 has no tag: a wrong key shows only as objects that do not parse.
                guard frame.version < 4, error.kind == .malformed else { throw error }
                throw ReadingError(
                    .decryptionFailed, raw: payload,
                    detail: "the MiBeacon v\(frame.version) objects do not parse with the key configured for "
                        + "\(address): a wrong key?")
            }
            return try reading(builder, counter: counter, modulus: 1 << 32, authenticated: true)
        }
    }

    private func reading(
        _ builder: QuantitiesBuilder, counter: UInt32, modulus: UInt64?, authenticated: Bool = false
    ) throws(ReadingError) -> AdvertisementReading? {
        guard !builder.isEmpty else { return nil }
        return try builder.reading(counter: counter, counterModulus: modulus, isAuthenticated: authenticated)
    }
}

extension AdvertisementKey {
    /// A MiBeacon bind key: 32 hex digits (16 bytes, v4/v5), or 24 (12 bytes, v2/v3), as
    /// `mibeacon_key` lines give it.
    public static func miBeacon(hex text: some StringProtocol) throws(ParseError) -> AdvertisementKey {
        try AdvertisementKey(hex: text, format: "MiBeacon", byteCounts: [16, 12])
    }
}

/// The header of a MiBeacon frame.
struct MiBeaconFrame {
    let frameControl: UInt16
    let productID: UInt16
    let frameCounter: UInt8
    /// The device the frame is from: the address inside it, else the sender's.
    let device: BluetoothAddress
    /// Where the objects (or the ciphertext) start.
    let length: Int

    var version: Int { Int(frameControl >> 12) }
    var isEncrypted: Bool { frameControl & 0x08 != 0 }
    var hasObjects: Bool { frameControl & 0x40 != 0 }

    /// Parses the header; `nil` for frames no thermometer sends (mesh, version below 2, or
    /// an address inside that is not the sender's).
    init?(_ payload: [UInt8], sender: BluetoothAddress) throws(ReadingError) {
        guard !payload.isEmpty else { throw ReadingError(.empty, raw: payload) }
        guard payload.count >= 5 else {
            throw ReadingError(
                .malformed, raw: payload, detail: "a MiBeacon frame has at least 5 bytes, got \(payload.count)")
        }
        frameControl = UInt16(payload.unsignedLittleEndian(at: 0, count: 2))
        guard frameControl & 0x80 == 0, frameControl >> 12 >= 2 else { return nil }
        productID = UInt16(payload.unsignedLittleEndian(at: 2, count: 2))
        frameCounter = payload[4]
        var length = 5
        if frameControl & 0x10 != 0 {
            guard payload.count >= length + 6 else { throw Self.truncated(payload, "its address") }
            let inside = BluetoothAddress(value: UInt64(payload.unsignedLittleEndian(at: length, count: 6)))
            guard inside == sender else { return nil }
            length += 6
        }
        device = sender
        if frameControl & 0x20 != 0 {
            guard payload.count > length else { throw Self.truncated(payload, "its capability byte") }
            length += payload[length] & 0x20 != 0 ? 2 : 1
            guard payload.count >= length else { throw Self.truncated(payload, "its I/O byte") }
        }
        self.length = length
    }

    private static func truncated(_ payload: [UInt8], _ part: String) -> ReadingError {
        ReadingError(.malformed, raw: payload, detail: "the MiBeacon frame ends before \(part)")
    }
}

/// The objects of a MiBeacon frame, read as Home Assistant's xiaomi-ble reads them (a later
/// object of a quantity replaces an earlier one, as there).
enum MiBeaconObjects {
    /// Reads the objects in `bytes` into `builder`; an object whose length runs past the end
    /// ends the frame (``ReadingError/Kind/malformed`` when it is the first).
    static func read(
        _ bytes: ArraySlice<UInt8>, model: String, into builder: inout QuantitiesBuilder, raw: [UInt8]
    ) throws(ReadingError) {
        var values: [(quantity: Quantity, count: Int, per: Int)] = []
        var start = bytes.startIndex
        while bytes.endIndex - start >= 3 {
            let id = UInt16(bytes[start]) | UInt16(bytes[start + 1]) << 8
            let next = start + 3 + Int(bytes[start + 2])
            guard next <= bytes.endIndex else {
                guard values.isEmpty else { break }
                throw ReadingError(
                    .malformed, raw: raw, detail: "MiBeacon object 0x\(paddedHex(id, digits: 4)) runs past the frame")
            }
            try values.append(contentsOf: decode(id, bytes[(start + 3)..<next], model: model, raw: raw))
            start = next
        }
        for value in values { try builder.replace(value.quantity, value.count, per: value.per) }
    }

    /// One object's quantities, as exact fractions; none for objects not read here.
    private static func decode(
        _ id: UInt16, _ data: ArraySlice<UInt8>, model: String, raw: [UInt8]
    ) throws(ReadingError) -> [(quantity: Quantity, count: Int, per: Int)] {
        let bytes = Array(data)
        switch (id, bytes.count) {
        case (0x1004, 2): return [(.temperature, bytes.signedLittleEndian(at: 0, count: 2), 10)]
        case (0x1006, 2):
            let tenths = bytes.unsignedLittleEndian(at: 0, count: 2)
            // Whole percents where the sensor's tenths step unevenly, as Home Assistant does.
            return ["LYWSD03MMC", "MHO-C401"].contains(model)
                ? [(.humidity, tenths / 10, 1)] : [(.humidity, tenths, 10)]
        case (0x100D, 4):
            return [
                (.temperature, bytes.signedLittleEndian(at: 0, count: 2), 10),
                (.humidity, bytes.unsignedLittleEndian(at: 2, count: 2), 10),
            ]
        case (0x100A, 1...), (0x4803, 1...), (0x4C03, 1...): return [(.battery, Int(bytes[0]), 1)]
        case (0x4C02, 1): return [(.humidity, Int(bytes[0]), 1)]
        case (0x4C01, 4): return [(.temperature, try hundredths(of: bytes, raw: raw), 100)]
        case (0x4C08, 4): return [(.humidity, try hundredths(of: bytes, raw: raw), 100)]
        default: return []
        }
    }

    /// A little-endian float32 in hundredths, rounded half to even (Python's `round(x, 2)`).
    private static func hundredths(of bytes: [UInt8], raw: [UInt8]) throws(ReadingError) -> Int {
        let value = Double(Float(bitPattern: UInt32(bytes.unsignedLittleEndian(at: 0, count: 4))))
        guard value.isFinite, abs(value) < 1e6 else {
            throw ReadingError(.unsupportedValue, raw: raw, detail: "MiBeacon float \(value)")
        }
        return Int((value * 100).rounded(.toNearestOrEven))
    }
}

/// Decryption of MiBeacon frames with the device's bind key, and the replay check.
enum MiBeaconCipher {
    /// The fixed bytes that make a 12-byte v2/v3 key a 16-byte AES key.
    static let legacyKeyFill: [UInt8] = [0x8D, 0x3D, 0x3C, 0x97]

    /// The objects in plain text and the frame's 32-bit counter.
    static func open(
        _ payload: [UInt8], _ frame: MiBeaconFrame, keyring: inout AdvertisementKeyring
    ) throws(ReadingError) -> (objects: [UInt8], counter: UInt32) {
        let trailer = frame.version >= 4 ? 3 + AESCCM.tagLength : 4
        guard payload.count >= frame.length + 1 + trailer else {
            throw ReadingError(
                .malformed, raw: payload,
                detail: "an encrypted MiBeacon v\(frame.version) frame needs at least "
                    + "\(frame.length + 1 + trailer) bytes, got \(payload.count)")
        }
        let key = try keyring.key(for: frame.device, raw: payload, format: "MiBeacon")
        let end = payload.count - trailer
        let extensionBytes = payload[end..<end + 3]
        let counter = UInt32(frame.frameCounter) | UInt32(payload.unsignedLittleEndian(at: end, count: 3)) << 8
        let address = frame.device.bytes.reversed()
        let objects: [UInt8]
        if frame.version >= 4 {
            guard key.bytes.count == 16 else { throw wrongKeyLength(payload, frame, key) }
            let nonce = Array(address) + payload[2..<5] + extensionBytes
            guard
                let plain = AESCCM.open(
                    payload[frame.length..<end], tag: payload[(end + 3)...], nonce: nonce, associatedData: [0x11],
                    key: key)
            else {
                throw ReadingError(
                    .decryptionFailed, raw: payload,
                    detail: "the frame does not authenticate with the MiBeacon key configured for \(frame.device)")
            }
            objects = plain
        } else {
            guard key.bytes.count == 12 else { throw wrongKeyLength(payload, frame, key) }
            let nonce = Array(payload[0..<5]) + extensionBytes + address.prefix(5)
            let key16 = Array(key.bytes[0..<6]) + legacyKeyFill + key.bytes[6...]
            objects = AESCCM.decryptUnauthenticated(payload[frame.length..<end], nonce: nonce, key16: key16)
        }
        try keyring.admitFresh(counter, from: frame.device, raw: payload)
        return (objects, counter)
    }

    private static func wrongKeyLength(
        _ payload: [UInt8], _ frame: MiBeaconFrame, _ key: AdvertisementKey
    ) -> ReadingError {
        ReadingError(
            .decryptionFailed, raw: payload,
            detail: "MiBeacon v\(frame.version) needs a \(frame.version >= 4 ? 16 : 12)-byte key; the key of "
                + "\(frame.device) has \(key.bytes.count) bytes")
    }
}
