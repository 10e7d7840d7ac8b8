import SensorModel

/// A device's AES-128 key for encrypted BTHome advertisements (its "bindkey").
///
/// Neither its description nor its mirror shows the key, so it cannot leak into a log line
/// or a `dump`.
public struct BTHomeKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The key's 16 bytes.
    let bytes: [UInt8]

    /// The length of a key in bytes.
    public static let byteCount = 16

    /// Parses a key written as 32 hex digits, either case, nothing else (as the
    /// `bthome_key` configuration lines and the device's setup page show it).
    ///
    /// - Throws: ``ParseError`` saying what is wrong, without repeating the key.
    public init(hex text: some StringProtocol) throws(ParseError) {
        let characters = Array(text.unicodeScalars)
        guard characters.count == 2 * Self.byteCount else {
            throw ParseError(
                "a BTHome key is \(2 * Self.byteCount) hex digits (\(Self.byteCount) bytes), "
                    + "got \(characters.count) characters")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.byteCount)
        for pair in stride(from: 0, to: characters.count, by: 2) {
            guard let high = Self.hexValue(characters[pair]) else { throw Self.notHex(characters, at: pair) }
            guard let low = Self.hexValue(characters[pair + 1]) else { throw Self.notHex(characters, at: pair + 1) }
            bytes.append(high << 4 | low)
        }
        self.bytes = bytes
    }

    /// `BTHomeKey(<redacted>)`: the key itself is never printed.
    public var description: String { "BTHomeKey(<redacted>)" }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// A mirror without children, so `dump` and debuggers' summaries show no key bytes.
    public var customMirror: Mirror { Mirror(self, children: [:]) }

    /// Why text is not a BTHome key.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The problem, e.g. `character 7 of the BTHome key is not a hex digit: "g"`.
        public let description: String

        init(_ description: String) { self.description = description }
    }

    private static func notHex(_ characters: [Unicode.Scalar], at index: Int) -> ParseError {
        let shown = RawValueRendering.render(part: String(characters[index]))
        return ParseError("character \(index + 1) of the BTHome key is not a hex digit: \(shown)")
    }

    private static func hexValue(_ scalar: Unicode.Scalar) -> UInt8? {
        switch scalar {
        case "0"..."9": UInt8(scalar.value - 0x30)
        case "a"..."f": UInt8(scalar.value - 0x61 + 10)
        case "A"..."F": UInt8(scalar.value - 0x41 + 10)
        default: nil
        }
    }
}
