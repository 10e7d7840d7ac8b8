import FoundationEssentials

/// Encoding and decoding of single JSON Lines with the protocol's settings.
public enum JSONLines {
    /// Encodes `value` as one line: compact JSON, keys sorted (stable output for people and
    /// tests; key order carries no meaning), slashes unescaped, then `\n`.
    public static func encode(_ value: some Encodable) throws -> [UInt8] {
        var bytes = [UInt8](try makeEncoder().encode(value))
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// Encodes `value` as a JSON text without the newline, for printing.
    public static func encodeString(_ value: some Encodable, pretty: Bool = false) throws -> String {
        let encoder = makeEncoder()
        if pretty { encoder.outputFormatting.insert(.prettyPrinted) }
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// Decodes one line (with or without its trailing newline).
    public static func decode<T: Decodable>(_ type: T.Type, from line: some Collection<UInt8>) throws -> T {
        try JSONDecoder().decode(type, from: Data(line))
    }

    private static func makeEncoder() -> JSONEncoder {
        // A fresh encoder per call: it is a mutable reference type, and encoding is cheap
        // next to the socket write it feeds.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
