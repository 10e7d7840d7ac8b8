import CBlueZ

/// A Bluetooth device address, such as `DC:A6:32:01:02:03`.
///
/// Parsed with libbluetooth (`str2ba`), so any spelling BlueZ accepts is accepted;
/// the text is always upper case, as BlueZ writes it. The address is one integer, so
/// copying, hashing and comparing it allocate nothing.
public struct BluetoothAddress: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The 48-bit address; the first byte written is the most significant.
    private let value: UInt64

    /// Parses `XX:XX:XX:XX:XX:XX` (either case); nil for anything else.
    public init?(_ text: String) {
        var little = [UInt8](repeating: 0, count: 6)
        guard text.utf8.count == 17, cbluez_str2ba(text, &little) == 0 else { return nil }
        // str2ba stores the bytes least significant first.
        value = little.reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// Reads the address out of a BlueZ device path (`…/dev_DC_A6_32_01_02_03`).
    public init?(devicePathElement element: Substring) {
        guard element.hasPrefix("dev_") else { return nil }
        self.init(element.dropFirst(4).replacingUnderscores())
    }

    /// The six bytes, most significant first (as written).
    public var bytes: [UInt8] { (0..<6).map { UInt8(truncatingIfNeeded: value >> (40 - 8 * $0)) } }

    /// The element BlueZ names this device's object with (`dev_DC_A6_32_01_02_03`).
    public var devicePathElement: String { "dev_" + text(separator: UInt8(ascii: "_")) }

    /// The address as BlueZ writes it: upper case, colon separated.
    public var description: String { text(separator: UInt8(ascii: ":")) }

    /// Formats by hand: this runs for every reading, and `ba2str` goes through `sprintf`.
    private func text(separator: UInt8) -> String {
        let digits: StaticString = "0123456789ABCDEF"
        return String(unsafeUninitializedCapacity: 17) { buffer in
            digits.withUTF8Buffer { hex in
                for index in 0..<6 {
                    let byte = Int(truncatingIfNeeded: value >> (40 - 8 * index)) & 0xFF
                    buffer[index * 3] = hex[byte >> 4]
                    buffer[index * 3 + 1] = hex[byte & 0xF]
                    if index < 5 { buffer[index * 3 + 2] = separator }
                }
            }
            return 17
        }
    }

    /// Orders addresses by their 48-bit value.
    public static func < (lhs: BluetoothAddress, rhs: BluetoothAddress) -> Bool { lhs.value < rhs.value }
}

extension Substring {
    fileprivate func replacingUnderscores() -> String {
        String(map { $0 == "_" ? ":" : $0 })
    }
}
