import SensorModel

/// The hot path of the event stream: `reading` lines written by hand.
///
/// A busy daemon pushes thousands of readings a second; Foundation's `JSONEncoder` cost
/// more than everything else it did per reading, and the protocol's own encoder still
/// goes through Codable's containers and a ``JSONValue`` tree. The writer below produces exactly the bytes
/// ``JSONLines/encode(_:)`` produces (keys sorted, compact, slashes unescaped; a test
/// compares the two), with the encoder's own string escaping and number formatting.
extension Event {
    /// The event as one JSON line with its `\n`, as ``JSONLines/encode(_:)`` writes it.
    public func jsonLine() throws -> [UInt8] {
        if case .reading(let reading) = self, let line = reading.fastJSONLine() { return line }
        return try JSONLines.encode(self)
    }
}

extension Reading {
    /// The `reading` event line of a temperature-only reading; nil for any other (the
    /// encoder then writes it, or reports why it cannot).
    func fastJSONLine() -> [UInt8]? {
        guard let value = measurement.celsius, let celsius = JSONValue.numberText(value),
            Quantity.allCases.allSatisfy({ $0 == .temperature || measurement.quantities[$0] == nil })
        else { return nil }
        var line: [UInt8] = []
        line.reserveCapacity(180)
        line.append(contentsOf: #"{"address":"#.utf8)
        line.appendJSONString(address)
        line.append(contentsOf: #","celsius":"#.utf8)
        line.append(contentsOf: celsius.utf8)
        line.append(contentsOf: #","name":"#.utf8)
        if let name {
            line.appendJSONString(name)
        } else {
            line.append(contentsOf: "null".utf8)
        }
        line.append(contentsOf: #","profile":"#.utf8)
        line.appendJSONString(measurement.profile.rawValue)
        line.append(contentsOf: #","raw":"#.utf8)
        line.appendJSONString(measurement.raw)
        line.append(contentsOf: #","seq":"#.utf8)
        line.appendDecimal(seq)
        line.append(contentsOf: #","time":""#.utf8)
        time.appendRFC3339(to: &line)
        line.append(contentsOf: #"","type":"reading","unit":""#.utf8)
        line.append(contentsOf: measurement.unit.rawValue.utf8)
        line.append(contentsOf: "\"}\n".utf8)
        return line
    }
}

extension [UInt8] {
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
