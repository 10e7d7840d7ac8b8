/// A Bluetooth device address, such as `DC:A6:32:01:02:03`.
///
/// The text is always upper case, as BlueZ writes it. The address is one integer, so
/// copying, hashing and comparing it allocate nothing.
public struct BluetoothAddress: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The 48-bit address; the first byte written is the most significant.
    public let value: UInt64

    /// Parses `XX:XX:XX:XX:XX:XX` (either case); nil for anything else.
    @inlinable
    public init?(_ text: some StringProtocol) {
        self.init(utf8: text.utf8, separator: UInt8(ascii: ":"))
    }

    /// Parses six two-digit hex bytes joined by `separator` (BlueZ's object paths use `_`).
    ///
    /// Inlinable, so that each caller's module specializes it for its collection: this runs
    /// for every advertisement (the address in the device's path), and the unspecialized
    /// generic loop cost about 27,000 instructions a call.
    @inlinable
    public init?(utf8 text: some Collection<UInt8>, separator: UInt8) {
        guard text.count == 17 else { return nil }
        var value: UInt64 = 0
        var position = 0
        for byte in text {
            defer { position += 1 }
            if position % 3 == 2 {
                guard byte == separator else { return nil }
                continue
            }
            guard let digit = Self.hexDigit(byte) else { return nil }
            value = value << 4 | UInt64(digit)
        }
        self.value = value
    }

    /// The address of a 48-bit value (its upper 16 bits are ignored).
    public init(value: UInt64) { self.value = value & 0xFFFF_FFFF_FFFF }

    /// The address of six bytes, most significant first.
    public init(bytes: some Collection<UInt8>) {
        self.init(value: bytes.prefix(6).reduce(0) { $0 << 8 | UInt64($1) })
    }

    /// The six bytes, most significant first (as written).
    public var bytes: [UInt8] { (0..<6).map { UInt8(truncatingIfNeeded: value >> (40 - 8 * $0)) } }

    /// The address as BlueZ writes it: upper case, colon separated.
    public var description: String { text(separator: UInt8(ascii: ":")) }

    /// Upper-case hex digits joined by `separator` (BlueZ's paths use `_`).
    ///
    /// Formatted by hand: this runs for every reading, and `sprintf` would cost more.
    public func text(separator: UInt8) -> String {
        String(unsafeUninitializedCapacity: Self.textLength) { buffer in
            write(into: buffer, separator: separator)
            return Self.textLength
        }
    }

    /// The length of the address as text: six two-digit bytes and five separators.
    public static let textLength = 17

    /// Writes the text (``textLength`` bytes, upper-case hex joined by `separator`) at the
    /// start of `buffer`, so that a JSON line can carry the address without a `String`.
    public func write(into buffer: UnsafeMutableBufferPointer<UInt8>, separator: UInt8) {
        precondition(buffer.count >= Self.textLength, "a buffer too short for an address")
        let digits: StaticString = "0123456789ABCDEF"
        digits.withUTF8Buffer { hex in
            for index in 0..<6 {
                let byte = Int(truncatingIfNeeded: value >> (40 - 8 * index)) & 0xFF
                buffer[index * 3] = hex[byte >> 4]
                buffer[index * 3 + 1] = hex[byte & 0xF]
                if index < 5 { buffer[index * 3 + 2] = separator }
            }
        }
    }

    /// Orders addresses by their 48-bit value.
    public static func < (lhs: BluetoothAddress, rhs: BluetoothAddress) -> Bool { lhs.value < rhs.value }

    @usableFromInline
    static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
