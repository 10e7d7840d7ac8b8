/// Encoding and decoding of single JSON Lines with the protocol's settings.
///
/// The daemon does its own JSON (``JSONValue`` and its encoder, decoder, writer and
/// parser) rather than use Foundation's: linked statically, Foundation would add about
/// 3.4 MB of code to blectld, most of its resident memory.
public enum JSONLines {
    /// Encodes `value` as one line: compact JSON, keys sorted (stable output for people and
    /// tests; key order carries no meaning), slashes unescaped, absent optionals as `null`
    /// (or left out, as `absent` says), then `\n`.
    public static func encode(_ value: some Encodable, absent: AbsentOptionals = .null) throws -> [UInt8] {
        var writer = JSONWriter()
        writer.write(try JSONValueEncoder.encode(value, absent: absent))
        var bytes = writer.bytes
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// Encodes `value` as a JSON text without the newline, for printing; `pretty` lays it
    /// out as Foundation's `.prettyPrinted` does (two-space indents, `"key" : value`).
    public static func encodeString(
        _ value: some Encodable, pretty: Bool = false, absent: AbsentOptionals = .null
    ) throws -> String {
        var writer = JSONWriter(pretty: pretty)
        writer.write(try JSONValueEncoder.encode(value, absent: absent))
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Decodes one line (with or without its trailing newline); text that is not JSON is
    /// a `DecodingError.dataCorrupted`.
    public static func decode<T: Decodable>(_ type: T.Type, from line: some Collection<UInt8>) throws -> T {
        try JSONValueDecoder.decode(type, from: JSONParser.parse(Array(line)))
    }
}
