/// Finds values in the daemon's JSON lines without decoding them: the byte ranges of an
/// object's top-level members and of an array's elements.
///
/// blectl passes the daemon's objects through as they came (fields this build does not
/// know included), and follows `seq` at the daemon's burst rate, where decoding every
/// line and encoding it again could not keep up. Strings are skipped escape by escape,
/// so a name holding `"seq":` cannot be mistaken for a key.
struct JSONScanner {
    private let bytes: UnsafeBufferPointer<UInt8>

    /// Scans `bytes`; ranges index into it.
    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The value of the top-level member `key` of the object at `range`, or nil when there
    /// is none (or the object is malformed before it).
    func member(_ key: StaticString, in range: Range<Int>) -> Range<Int>? {
        var found: Range<Int>?
        _ = members(of: range) { name, value in
            guard equals(name, key) else { return true }
            found = value
            return false
        }
        return found
    }

    /// Calls `body` with each member's key (without quotes) and value, until it returns
    /// false; returns false when the object is malformed.
    func members(of range: Range<Int>, _ body: (_ key: Range<Int>, _ value: Range<Int>) -> Bool) -> Bool {
        items(of: range, open: UInt8(ascii: "{"), close: UInt8(ascii: "}")) { index in
            guard index < range.upperBound, bytes[index] == UInt8(ascii: "\""),
                let keyEnd = skipString(from: index, limit: range.upperBound)
            else { return nil }
            let colon = skipWhitespace(from: keyEnd, limit: range.upperBound)
            guard colon < range.upperBound, bytes[colon] == UInt8(ascii: ":") else { return nil }
            let start = skipWhitespace(from: colon + 1, limit: range.upperBound)
            guard let end = skipValue(from: start, limit: range.upperBound) else { return nil }
            return body((index + 1)..<(keyEnd - 1), start..<end) ? end : Self.stop
        }
    }

    /// Calls `body` with each element of the array at `range`; returns false when the
    /// array is malformed.
    func elements(of range: Range<Int>, _ body: (Range<Int>) -> Void) -> Bool {
        items(of: range, open: UInt8(ascii: "["), close: UInt8(ascii: "]")) { index in
            guard let end = skipValue(from: index, limit: range.upperBound) else { return nil }
            body(index..<end)
            return end
        }
    }

    /// Whether the bytes at `range` are `text` exactly (a key, or a value with its quotes).
    func equals(_ range: Range<Int>, _ text: StaticString) -> Bool {
        guard range.count == text.utf8CodeUnitCount else { return false }
        let expected = UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)
        return zip(bytes[range], expected).allSatisfy { $0 == $1 }
    }

    /// The unsigned integer at `range` (such as a `seq`), or nil if it is not one.
    func unsignedInteger(_ range: Range<Int>) -> UInt64? {
        guard !range.isEmpty, range.count <= 19 else { return nil }
        var value: UInt64 = 0
        for byte in bytes[range] {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + UInt64(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// What an item parser returns to end the walk early.
    private static let stop = Int.max

    /// The items between `open` and `close`, separated by commas; `item` parses one from
    /// an index and returns where it ends (nil: malformed; ``stop``: enough).
    private func items(of range: Range<Int>, open: UInt8, close: UInt8, _ item: (Int) -> Int?) -> Bool {
        var index = skipWhitespace(from: range.lowerBound, limit: range.upperBound)
        guard index < range.upperBound, bytes[index] == open else { return false }
        index = skipWhitespace(from: index + 1, limit: range.upperBound)
        if index < range.upperBound, bytes[index] == close { return true }
        while true {
            guard let end = item(index) else { return false }
            if end == Self.stop { return true }
            index = skipWhitespace(from: end, limit: range.upperBound)
            guard index < range.upperBound else { return false }
            if bytes[index] == close { return true }
            guard bytes[index] == UInt8(ascii: ",") else { return false }
            index = skipWhitespace(from: index + 1, limit: range.upperBound)
        }
    }

    /// The index after the value starting at `index`, or nil if it is cut short.
    private func skipValue(from index: Int, limit: Int) -> Int? {
        guard index < limit else { return nil }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            return skipString(from: index, limit: limit)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            return skipContainer(from: index, limit: limit)
        default:
            var end = index
            while end < limit, !Self.endsScalar(bytes[end]) { end += 1 }
            return end > index ? end : nil
        }
    }

    /// The index after the object or array starting at `index`, counting nesting and
    /// skipping strings.
    private func skipContainer(from index: Int, limit: Int) -> Int? {
        var depth = 0
        var position = index
        while position < limit {
            switch bytes[position] {
            case UInt8(ascii: "\""):
                guard let end = skipString(from: position, limit: limit) else { return nil }
                position = end
                continue
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 { return position + 1 }
            default:
                break
            }
            position += 1
        }
        return nil
    }

    /// The index after the closing quote of the string whose opening quote is at `index`.
    private func skipString(from index: Int, limit: Int) -> Int? {
        var position = index + 1
        while position < limit {
            switch bytes[position] {
            case UInt8(ascii: "\\"): position += 2
            case UInt8(ascii: "\""): return position + 1
            default: position += 1
            }
        }
        return nil
    }

    private func skipWhitespace(from index: Int, limit: Int) -> Int {
        var position = index
        while position < limit, Self.isWhitespace(bytes[position]) { position += 1 }
        return position
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func endsScalar(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") || isWhitespace(byte)
    }
}
