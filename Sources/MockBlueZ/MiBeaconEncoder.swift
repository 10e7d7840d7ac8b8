/// Xiaomi MiBeacon frames (service data 0xFE95) as the stock firmware of Xiaomi's
/// thermometers sends them: plain, encrypted v4/v5 (AES-CCM with the bind key), and
/// encrypted v2/v3 (the 12-byte legacy key, no checkable tag).
///
/// The mock's Xiaomi sensors use it, and so does the oracle test, which decodes what it makes
/// with Home Assistant's parser.
public enum MiBeaconEncoder {
    /// How a frame is protected.
    public enum Encryption: Sendable, Equatable {
        /// Objects in plain text.
        case none
        /// v4/v5: a 16-byte key, a 3-byte counter extension and a 4-byte tag.
        case v5(key: [UInt8], counterExtension: UInt32)
        /// v2/v3: a 12-byte key, a 3-byte counter extension and one byte the receiver ignores.
        case legacy(key: [UInt8], counterExtension: UInt32)
    }

    /// The bind key of the mock's encrypted Xiaomi sensors (Home Assistant's CGG1 test key).
    public static let mockKey: [UInt8] = [
        0x81, 0x4A, 0xAC, 0x74, 0xC4, 0xF1, 0x7B, 0x6C, 0x15, 0x81, 0xE1, 0xAB, 0x87, 0x81, 0x6B, 0x99,
    ]
    /// The LYWSD03MMC's product id.
    public static let lywsd03mmc: UInt16 = 0x055B
    /// The LYWSD02's product id.
    public static let lywsd02: UInt16 = 0x045B

    /// One object: id, length, data.
    public static func object(_ id: UInt16, _ data: [UInt8]) -> [UInt8] {
        [UInt8(id & 0xFF), UInt8(id >> 8), UInt8(data.count)] + data
    }

    /// A frame with the address inside (`address` as written, most significant byte first).
    public static func frame(
        productID: UInt16, frameCounter: UInt8, address: [UInt8], objects: [UInt8], encryption: Encryption
    ) -> [UInt8] {
        let mac = Array(address.reversed())
        let header = [UInt8(productID & 0xFF), UInt8(productID >> 8), frameCounter]
        switch encryption {
        case .none:
            // v3, address and objects included.
            return [0x50, 0x30] + header + mac + objects
        case .v5(let key, let counterExtension):
            let extensionBytes = littleEndian3(counterExtension)
            let sealed = CCMSealer.seal(objects, nonce: mac + header + extensionBytes, key: key, associatedData: [0x11])
            return [0x58, 0x58] + header + mac + sealed.dropLast(4) + extensionBytes + sealed.suffix(4)
        case .legacy(let key, let counterExtension):
            let extensionBytes = littleEndian3(counterExtension)
            let control: [UInt8] = [0x58, 0x30]
            let nonce = control + header + extensionBytes + mac.prefix(5)
            let key16 = Array(key[0..<6]) + [0x8D, 0x3D, 0x3C, 0x97] + key[6...]
            let sealed = CCMSealer.seal(objects, nonce: nonce, key: key16, associatedData: [0x11])
            return control + header + mac + sealed.dropLast(4) + extensionBytes + [sealed[sealed.count - 4]]
        }
    }

    private static func littleEndian3(_ value: UInt32) -> [UInt8] {
        (0..<3).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
}
