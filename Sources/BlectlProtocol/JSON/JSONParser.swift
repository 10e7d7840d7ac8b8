/// Parses RFC 8259 JSON text into a ``JSONValue``, strictly: no trailing commas,
/// comments, leading zeros, lone surrogates, raw control characters or trailing garbage.
///
/// Nesting is bounded (``maxDepth``) so that a hostile line from the socket cannot
/// exhaust the stack of the recursive descent.
struct JSONParser {
    /// The deepest nesting of arrays and objects accepted; the protocol needs about 5.
    static let maxDepth = 64

    private let bytes: [UInt8]
    private var offset = 0
    private var depth = 0

    /// Parses one complete JSON text (surrounding whitespace allowed).
    static func parse(_ bytes: [UInt8]) throws -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.offset == bytes.count else { throw parser.error("unexpected data after the JSON value") }
        return value
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private mutating func parseValue() throws -> JSONValue {
        guard offset < bytes.count else { throw error("unexpected end of data") }
        switch bytes[offset] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        case UInt8(ascii: "t"): return try parseLiteral("true", .bool(true))
        case UInt8(ascii: "f"): return try parseLiteral("false", .bool(false))
        case UInt8(ascii: "n"): return try parseLiteral("null", .null)
        default: throw error("unexpected character")
        }
    }

    private mutating func parseLiteral(_ word: String, _ value: JSONValue) throws -> JSONValue {
        let end = offset + word.utf8.count
        guard end <= bytes.count, bytes[offset..<end].elementsEqual(word.utf8) else {
            throw error("unexpected character")
        }
        offset = end
        return value
    }

    private mutating func parseArray() throws -> JSONValue {
        try enter()
        var items: [JSONValue] = []
        if try consumeClosing(UInt8(ascii: "]")) { return .array(items) }
        repeat {
            skipWhitespace()
            items.append(try parseValue())
            skipWhitespace()
        } while try consumeSeparator(closing: UInt8(ascii: "]"))
        return .array(items)
    }

    private mutating func parseObject() throws -> JSONValue {
        try enter()
        var members: [String: JSONValue] = [:]
        if try consumeClosing(UInt8(ascii: "}")) { return .object(members) }
        repeat {
            skipWhitespace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: "\"") else { throw error("expected a key") }
            let key = try parseString()
            skipWhitespace()
            guard offset < bytes.count, bytes[offset] == UInt8(ascii: ":") else { throw error("expected ':'") }
            offset += 1
            skipWhitespace()
            let value = try parseValue()
            // The first of duplicate keys wins, as with Foundation's JSONDecoder.
            if members[key] == nil { members[key] = value }
            skipWhitespace()
        } while try consumeSeparator(closing: UInt8(ascii: "}"))
        return .object(members)
    }

    /// Steps over an opening bracket, one level deeper.
    private mutating func enter() throws {
        depth += 1
        guard depth <= Self.maxDepth else { throw error("nesting deeper than \(Self.maxDepth) levels") }
        offset += 1
        skipWhitespace()
    }

    /// Consumes `closing` right after an opening bracket (an empty container).
    private mutating func consumeClosing(_ closing: UInt8) throws -> Bool {
        guard offset < bytes.count else { throw error("unexpected end of data") }
        guard bytes[offset] == closing else { return false }
        offset += 1
        depth -= 1
        return true
    }

    /// After an element: true at a comma (another element follows), false at `closing`.
    private mutating func consumeSeparator(closing: UInt8) throws -> Bool {
        guard offset < bytes.count else { throw error("unexpected end of data") }
        switch bytes[offset] {
        case UInt8(ascii: ","):
            offset += 1
            return true
        case closing:
            offset += 1
            depth -= 1
            return false
        default:
            throw error("expected ',' or '\(Unicode.Scalar(closing))'")
        }
    }

    private mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): offset += 1
            default: return
            }
        }
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, returned as its text.
    private mutating func parseNumber() throws -> String {
        let start = offset
        if bytes[offset] == UInt8(ascii: "-") { offset += 1 }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "0") {
            offset += 1
        } else {
            try digits()
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            offset += 1
            try digits()
        }
        if offset < bytes.count, bytes[offset] | 0x20 == UInt8(ascii: "e") {
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") {
                offset += 1
            }
            try digits()
        }
        return String(decoding: bytes[start..<offset], as: UTF8.self)
    }

    /// One or more decimal digits.
    private mutating func digits() throws {
        let start = offset
        while offset < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[offset]) { offset += 1 }
        guard offset > start else { throw error("expected a digit") }
    }

    /// Builds the error every parse failure throws, naming the byte offset.
    func error(_ problem: String) -> DecodingError {
        DecodingError.dataCorrupted(
            DecodingError.Context(
                codingPath: [], debugDescription: "The given data was not valid JSON: \(problem) at byte \(offset)."))
    }
}

extension JSONParser {
    /// A quoted string at `offset`, unescaped; the text must be valid UTF-8.
    fileprivate mutating func parseString() throws -> String {
        offset += 1
        var text: [UInt8] = []
        while true {
            guard offset < bytes.count else { throw error("unterminated string") }
            let byte = bytes[offset]
            offset += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let string = String(validating: text, as: UTF8.self) else {
                    throw error("invalid UTF-8 in a string")
                }
                return string
            case UInt8(ascii: "\\"):
                try parseEscape(into: &text)
            case 0..<0x20:
                offset -= 1
                throw error("unescaped control character in a string")
            default:
                text.append(byte)
            }
        }
    }

    /// The escape after a backslash, appended as UTF-8.
    private mutating func parseEscape(into text: inout [UInt8]) throws {
        guard offset < bytes.count else { throw error("unterminated string") }
        let byte = bytes[offset]
        offset += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(byte)
        case UInt8(ascii: "b"): text.append(0x08)
        case UInt8(ascii: "f"): text.append(0x0C)
        case UInt8(ascii: "n"): text.append(UInt8(ascii: "\n"))
        case UInt8(ascii: "r"): text.append(UInt8(ascii: "\r"))
        case UInt8(ascii: "t"): text.append(UInt8(ascii: "\t"))
        case UInt8(ascii: "u"):
            var scalar = try parseHex4()
            if (0xD800..<0xDC00).contains(scalar) {
                // A high surrogate must be followed by an escaped low one.
                guard offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "\\"),
                    bytes[offset + 1] == UInt8(ascii: "u")
                else { throw error("unpaired surrogate in a string") }
                offset += 2
                let low = try parseHex4()
                guard (0xDC00..<0xE000).contains(low) else { throw error("unpaired surrogate in a string") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw error("unpaired surrogate in a string") }
            text.append(contentsOf: String(unicode).utf8)
        default:
            offset -= 1
            throw error("invalid escape in a string")
        }
    }

    /// The four hex digits of a `\\u` escape.
    private mutating func parseHex4() throws -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard offset < bytes.count, let digit = Self.hexValue(bytes[offset]) else {
                throw error("invalid \\u escape in a string")
            }
            value = value << 4 | digit
            offset += 1
        }
        return value
    }

    private static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
        default: nil
        }
    }
}
