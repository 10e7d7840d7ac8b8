/// A Bluetooth UUID, always held in the full 128-bit lowercase form BlueZ reports.
///
/// BlueZ's D-Bus API spells every UUID as 36 lowercase characters
/// (`0000180a-0000-1000-8000-00805f9b34fb`), so comparing that form is enough to match
/// services and characteristics. Short 16-bit and 32-bit forms expand onto the
/// Bluetooth base UUID `xxxxxxxx-0000-1000-8000-00805f9b34fb`.
///
/// Accepted text (see ``init(_:)``):
/// - 4 or 8 hex digits, optionally prefixed by `0x`/`0X`: `"2a1c"`, `"0x2A1C"`, `"0000180A"`;
/// - the 36-character hyphenated form, in any case.
///
/// Anything else, including surrounding whitespace, is rejected.
public struct BluetoothUUID: Hashable, Sendable {
    /// The canonical 36-character lowercase form, e.g. `00002a1c-0000-1000-8000-00805f9b34fb`.
    public let uuidString: String

    /// The tail every short-form UUID expands onto.
    static let baseSuffix = "-0000-1000-8000-00805f9b34fb"

    /// Creates the 128-bit UUID of a 16-bit SIG-assigned number, e.g. `0x2A1C`.
    public init(_ short: UInt16) {
        self.init(UInt32(short))
    }

    /// Creates the 128-bit UUID of a 32-bit SIG-assigned number.
    public init(_ short: UInt32) {
        self.init(canonical: Self.hex(short, digits: 8) + Self.baseSuffix)
    }

    /// Wraps text already in the canonical form.
    private init(canonical: String) {
        uuidString = canonical
    }

    /// Parses a short (16/32-bit) or full 128-bit UUID; returns `nil` for anything else.
    ///
    /// - Parameter text: `"2a1c"`, `"0x2A1C"`, `"0000180a"`, or
    ///   `"00000001-710E-4A5B-8D75-3E5B444BC3CF"` (any case).
    public init?(_ text: String) {
        var digits = Substring(text)
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") {
            digits = digits.dropFirst(2)
            // A prefix only makes sense on a short form.
            guard digits.utf8.count <= 8 else { return nil }
        }
        let utf8 = Array(digits.utf8)
        switch utf8.count {
        case 4, 8:
            guard utf8.allSatisfy(Self.isHexDigit), let value = UInt32(digits, radix: 16) else {
                return nil
            }
            self.init(value)
        case 36:
            let hyphens: Set<Int> = [8, 13, 18, 23]
            for (index, byte) in utf8.enumerated() {
                let valid = hyphens.contains(index) ? byte == UInt8(ascii: "-") : Self.isHexDigit(byte)
                guard valid else { return nil }
            }
            self.init(canonical: String(digits).lowercased())
        default:
            return nil
        }
    }

    /// Builds a UUID from text the module itself spells; a typo here is a programming error.
    init(known text: StaticString) {
        guard let uuid = BluetoothUUID("\(text)") else {
            preconditionFailure("not a Bluetooth UUID: \(text)")
        }
        self = uuid
    }

    /// The 16- or 32-bit assigned number when this UUID lies on the Bluetooth base UUID.
    ///
    /// `nil` for vendor UUIDs such as the Pi's `00000001-710e-…`.
    public var shortValue: UInt32? {
        guard uuidString.hasSuffix(Self.baseSuffix) else { return nil }
        return UInt32(uuidString.prefix(8), radix: 16)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "a")...UInt8(ascii: "f"),
            UInt8(ascii: "A")...UInt8(ascii: "F"):
            true
        default:
            false
        }
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
