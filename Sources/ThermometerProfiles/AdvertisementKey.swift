import SensorModel

/// A device's AES-128 key for encrypted advertisements (its "bind key": BTHome, Xiaomi
/// MiBeacon).
///
/// Neither its description nor its mirror shows the key, so it cannot leak into a log line
/// or a `dump`. Each format parses its keys through its own constructor
/// (``bthome(hex:)``, ``miBeacon(hex:)``), which knows the lengths it takes.
public struct AdvertisementKey: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The key's bytes: 16, or 12 for MiBeacon v2/v3's legacy keys.
    let bytes: [UInt8]

    /// Parses a key written as hex digits, either case, nothing else (as configuration
    /// lines and the devices' setup pages show it).
    ///
    /// - Parameters:
    ///   - format: The format's name in errors (`BTHome`).
    ///   - byteCounts: The key lengths the format takes, in bytes.
    /// - Throws: ``ParseError`` saying what is wrong, without repeating the key.
    init(hex text: some StringProtocol, format: String, byteCounts: [Int]) throws(ParseError) {
        let characters = Array(text.unicodeScalars)
        guard byteCounts.contains(where: { 2 * $0 == characters.count }) else {
            let lengths = byteCounts.map { "\(2 * $0) hex digits (\($0) bytes)" }.joined(separator: " or ")
            throw ParseError("a \(format) key is \(lengths), got \(characters.count) characters")
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(characters.count / 2)
        for pair in stride(from: 0, to: characters.count, by: 2) {
            guard let high = Self.hexValue(characters[pair]) else {
                throw Self.notHex(characters, at: pair, format: format)
            }
            guard let low = Self.hexValue(characters[pair + 1]) else {
                throw Self.notHex(characters, at: pair + 1, format: format)
            }
            bytes.append(high << 4 | low)
        }
        self.bytes = bytes
    }

    /// `AdvertisementKey(<redacted>)`: the key itself is never printed.
    public var description: String { "AdvertisementKey(<redacted>)" }

    /// The same as ``description``.
    public var debugDescription: String { description }

    /// A mirror without children, so `dump` and debuggers' summaries show no key bytes.
    public var customMirror: Mirror { Mirror(self, children: [:]) }

    /// Why text is not a key.
    public struct ParseError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The problem, e.g. `character 7 of the BTHome key is not a hex digit: "g"`.
        public let description: String

        init(_ description: String) { self.description = description }
    }

    private static func notHex(_ characters: [Unicode.Scalar], at index: Int, format: String) -> ParseError {
        let shown = RawValueRendering.render(part: String(characters[index]))
        return ParseError("character \(index + 1) of the \(format) key is not a hex digit: \(shown)")
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
