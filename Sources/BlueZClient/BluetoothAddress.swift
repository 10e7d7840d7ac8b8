import CBlueZ

/// A Bluetooth device address, such as `DC:A6:32:01:02:03`.
///
/// Parsed and formatted with libbluetooth (`bachk`, `str2ba`, `ba2str`), so any
/// spelling BlueZ accepts is accepted and the text is always upper case.
public struct BluetoothAddress: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The six bytes, most significant first (as written).
    public let bytes: [UInt8]

    /// Parses `XX:XX:XX:XX:XX:XX` (either case); nil for anything else.
    public init?(_ text: String) {
        var little = [UInt8](repeating: 0, count: 6)
        guard text.utf8.count == 17, cbluez_str2ba(text, &little) == 0 else { return nil }
        bytes = little.reversed()
    }

    /// Reads the address out of a BlueZ device path (`…/dev_DC_A6_32_01_02_03`).
    public init?(devicePathElement element: Substring) {
        guard element.hasPrefix("dev_") else { return nil }
        self.init(element.dropFirst(4).replacingUnderscores())
    }

    /// The element BlueZ names this device's object with (`dev_DC_A6_32_01_02_03`).
    public var devicePathElement: String {
        "dev_" + String(description.map { $0 == ":" ? "_" : $0 })
    }

    /// The address as BlueZ writes it: upper case, colon separated.
    public var description: String {
        var text = [CChar](repeating: 0, count: 18)
        let little = Array(bytes.reversed())
        _ = cbluez_ba2str(little, &text)
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Orders addresses by their 48-bit value.
    public static func < (lhs: BluetoothAddress, rhs: BluetoothAddress) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }
}

extension Substring {
    fileprivate func replacingUnderscores() -> String {
        String(map { $0 == "_" ? ":" : $0 })
    }
}
