import SensorModel

/// Writes a ``JSONValue`` as UTF-8 in the layout Foundation's JSONEncoder uses with
/// `.sortedKeys` and `.withoutEscapingSlashes`, so the protocol's bytes did not change
/// when the encoder was replaced.
struct JSONWriter {
    /// The text written so far.
    private(set) var bytes: [UInt8] = []
    /// Pretty: two-space indents, one member per line, `"key" : value`.
    let pretty: Bool

    init(pretty: Bool = false) {
        self.pretty = pretty
    }

    mutating func write(_ value: JSONValue) {
        write(value, indent: 0)
    }

    private mutating func write(_ value: JSONValue, indent: Int) {
        switch value {
        case .null: bytes.append(contentsOf: "null".utf8)
        case .bool(let flag): bytes.append(contentsOf: (flag ? "true" : "false").utf8)
        case .number(let text): bytes.append(contentsOf: text.utf8)
        case .string(let text): bytes.appendJSONString(text)
        case .array(let items):
            writeContainer(open: "[", close: "]", count: items.count, indent: indent) { writer, index in
                writer.write(items[index], indent: indent + 1)
            }
        case .object(let members):
            // Keys in UTF-8 byte order, as Foundation's `.sortedKeys` orders them on Linux
            // ("AB" < "Ab" < "a10" < "a9" < "a_b" < "ab" < "é").
            let keys = members.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            writeContainer(open: "{", close: "}", count: keys.count, indent: indent) { writer, index in
                writer.bytes.appendJSONString(keys[index])
                writer.bytes.append(contentsOf: (writer.pretty ? " : " : ":").utf8)
                writer.write(members[keys[index]]!, indent: indent + 1)
            }
        }
    }

    /// The brackets, commas and (pretty) line breaks around `count` elements; an empty
    /// pretty container is `[`, a blank line and `]`, as Foundation writes it.
    private mutating func writeContainer(
        open: Unicode.Scalar, close: Unicode.Scalar, count: Int, indent: Int,
        element: (inout JSONWriter, Int) -> Void
    ) {
        bytes.append(UInt8(ascii: open))
        if pretty { bytes.append(UInt8(ascii: "\n")) }
        for index in 0..<count {
            if index > 0 { bytes.append(contentsOf: (pretty ? ",\n" : ",").utf8) }
            if pretty { writeIndent(indent + 1) }
            element(&self, index)
        }
        if pretty {
            bytes.append(UInt8(ascii: "\n"))
            writeIndent(indent)
        }
        bytes.append(UInt8(ascii: close))
    }

    private mutating func writeIndent(_ level: Int) {
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * level))
    }

}

extension [UInt8] {
    /// Appends `text` as a quoted JSON string: `"` and `\` escaped, control characters as
    /// `\n`-style escapes where JSON has them and `\u00xx` (lowercase hex) otherwise;
    /// everything else, slashes, DEL and non-ASCII included, as is.
    mutating func appendJSONString(_ text: String) {
        append(UInt8(ascii: "\""))
        // Most text (every reading line's address, name, profile and raw value) needs no
        // escape: copied whole, not appended byte by byte.
        let copied = text.utf8.withContiguousStorageIfAvailable { bytes in
            guard !bytes.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") })
            else { return false }
            append(contentsOf: bytes)
            return true
        }
        if copied != true { appendEscaped(text) }
        append(UInt8(ascii: "\""))
    }

    /// Appends `address` as a quoted JSON string, `"DC:A6:32:01:02:03"`, written in place.
    mutating func appendJSONString(_ address: BluetoothAddress) {
        append(UInt8(ascii: "\""))
        let start = count
        append(contentsOf: repeatElement(0, count: BluetoothAddress.textLength))
        withUnsafeMutableBufferPointer { bytes in
            address.write(into: UnsafeMutableBufferPointer(rebasing: bytes[start...]), separator: UInt8(ascii: ":"))
        }
        append(UInt8(ascii: "\""))
    }

    private mutating func appendEscaped(_ text: String) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): append(contentsOf: #"\""#.utf8)
            case UInt8(ascii: "\\"): append(contentsOf: #"\\"#.utf8)
            case 0x08: append(contentsOf: #"\b"#.utf8)
            case 0x0C: append(contentsOf: #"\f"#.utf8)
            case UInt8(ascii: "\n"): append(contentsOf: #"\n"#.utf8)
            case UInt8(ascii: "\r"): append(contentsOf: #"\r"#.utf8)
            case UInt8(ascii: "\t"): append(contentsOf: #"\t"#.utf8)
            case 0..<0x20:
                append(contentsOf: #"\u00"#.utf8)
                append(jsonHexDigits[Int(byte >> 4)])
                append(jsonHexDigits[Int(byte & 0x0F)])
            default: append(byte)
            }
        }
    }
}

private let jsonHexDigits = Array("0123456789abcdef".utf8)
