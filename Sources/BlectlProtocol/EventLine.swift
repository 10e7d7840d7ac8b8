/// The hot path of the event stream: `reading` lines written by hand.
///
/// A busy daemon pushes thousands of readings a second; Foundation's `JSONEncoder` cost
/// more than everything else it did per reading, and the protocol's own encoder still
/// goes through Codable's containers and a ``JSONValue`` tree. The writer below produces exactly the bytes
/// ``JSONLines/encode(_:)`` produces (keys sorted, compact, slashes unescaped; a test
/// compares the two) and leaves anything unusual, such as a string that needs escaping
/// or a number in exponent form, to the encoder.
extension Event {
    /// The event as one JSON line with its `\n`, as ``JSONLines/encode(_:)`` writes it.
    public func jsonLine() throws -> [UInt8] {
        if case .reading(let reading) = self, let line = reading.fastJSONLine() { return line }
        return try JSONLines.encode(self)
    }
}

extension Reading {
    /// The `reading` event line, or nil when a value needs the encoder's care.
    func fastJSONLine() -> [UInt8]? {
        guard let celsius = Self.plainNumber(celsius) else { return nil }
        var line: [UInt8] = []
        line.reserveCapacity(160)
        line.append(contentsOf: #"{"address":"#.utf8)
        guard line.appendPlainString(address) else { return nil }
        line.append(contentsOf: #","celsius":"#.utf8)
        line.append(contentsOf: celsius.utf8)
        line.append(contentsOf: #","name":"#.utf8)
        if let name {
            guard line.appendPlainString(name) else { return nil }
        } else {
            line.append(contentsOf: "null".utf8)
        }
        line.append(contentsOf: #","raw":"#.utf8)
        guard line.appendPlainString(raw) else { return nil }
        line.append(contentsOf: #","seq":"#.utf8)
        line.appendDecimal(seq)
        line.append(contentsOf: #","time":""#.utf8)
        time.appendRFC3339(to: &line)
        line.append(contentsOf: #"","type":"reading","unit":""#.utf8)
        line.append(contentsOf: unit.rawValue.utf8)
        line.append(contentsOf: "\"}\n".utf8)
        return line
    }

    /// `value` as the encoder writes it (`description` without a trailing `.0`), or nil
    /// for values it writes otherwise (not finite, exponent form).
    private static func plainNumber(_ value: Double) -> String? {
        guard value.isFinite else { return nil }
        var text = value.description
        guard !text.contains("e") else { return nil }
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }
}

extension [UInt8] {
    /// Appends `text` as a quoted JSON string when it needs no escaping (printable ASCII
    /// other than `"` and `\`); returns false, appending nothing, otherwise.
    mutating func appendPlainString(_ text: String) -> Bool {
        let plain = text.utf8.allSatisfy {
            $0 >= 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\")
        }
        guard plain else { return false }
        append(UInt8(ascii: "\""))
        append(contentsOf: text.utf8)
        append(UInt8(ascii: "\""))
        return true
    }

    /// Appends `value` in decimal, zero-padded to at least `width` digits.
    mutating func appendDecimal(_ value: some BinaryInteger, width: Int = 1) {
        if value < 0 { append(UInt8(ascii: "-")) }
        let magnitude = UInt64(value.magnitude)
        var digits = 1
        var divisor: UInt64 = 1
        while magnitude / divisor >= 10 {
            digits += 1
            divisor *= 10
        }
        append(contentsOf: repeatElement(UInt8(ascii: "0"), count: Swift.max(0, width - digits)))
        while divisor > 0 {
            append(UInt8(ascii: "0") + UInt8(magnitude / divisor % 10))
            divisor /= 10
        }
    }
}
