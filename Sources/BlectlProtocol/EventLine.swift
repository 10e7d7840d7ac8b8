import SensorModel

/// The hot path of the event stream and of MQTT: readings written by hand.
///
/// A busy daemon pushes thousands of readings a second; Foundation's `JSONEncoder` cost
/// more than everything else it did per reading, and the protocol's own encoder still
/// goes through Codable's containers and a ``JSONValue`` tree (about 100,000 instructions
/// for an advertising sensor's reading with humidity and battery). The writer below produces
/// exactly the bytes ``JSONLines/encode(_:absent:)`` produces (keys sorted, compact, slashes
/// unescaped; tests compare the two), with the encoder's own string escaping and number
/// formatting.
extension Event {
    /// The event as one JSON line with its `\n`, as ``JSONLines/encode(_:absent:)`` writes it.
    public func jsonLine() throws -> [UInt8] {
        if case .reading(let reading) = self, var line = reading.jsonObject(absent: .null, adding: Self.readingType) {
            line.append(UInt8(ascii: "\n"))
            return line
        }
        return try JSONLines.encode(self)
    }

    private static let readingType: [(key: String, value: JSONMember)] = [("type", .string("reading"))]
}

/// A value written beside a reading's own members by ``Reading/jsonObject(absent:adding:)``.
public enum JSONMember: Sendable {
    /// A string.
    case string(String)
    /// An integer.
    case integer(Int)
}

extension Reading {
    /// The reading as one compact JSON object, with `extra` members beside its own, byte for
    /// byte as ``JSONLines/encode(_:absent:)`` writes the ``Codable`` object that encodes the
    /// reading and then `extra` (without the newline); nil when a quantity is no finite number
    /// (the encoder then says why it cannot write it).
    ///
    /// - Parameter absent: whether a missing name or temperature is `null` or left out (the
    ///   other quantities are always left out when missing, as the encoder leaves them).
    public func jsonObject(absent: AbsentOptionals, adding extra: [(key: String, value: JSONMember)] = []) -> [UInt8]? {
        var members: [(key: String, value: MemberValue)] = [
            ("address", .string(address)), ("raw", .string(measurement.raw)),
            ("unit", .string(measurement.unit.rawValue)), ("profile", .string(measurement.profile.rawValue)),
            ("seq", .unsigned(seq)), ("time", .time(time)),
        ]
        members.reserveCapacity(members.count + Quantity.allCases.count + 1 + extra.count)
        if let name {
            members.append(("name", .string(name)))
        } else if absent == .null {
            members.append(("name", .null))
        }
        for quantity in Quantity.allCases {
            if let value = measurement.quantities[quantity] {
                guard let text = JSONValue.numberText(value) else { return nil }
                members.append((quantity.key, .number(text)))
            } else if quantity == .temperature, absent == .null {
                members.append((quantity.key, .null))
            }
        }
        for member in extra {
            let value: MemberValue =
                switch member.value {
                case .string(let text): .string(text)
                case .integer(let number): .integer(number)
                }
            // A key written twice: the later value, as the encoder keeps it.
            if let index = members.firstIndex(where: { $0.key == member.key }) {
                members[index].value = value
            } else {
                members.append((member.key, value))
            }
        }
        // Keys in UTF-8 byte order, as the encoder's writer orders them.
        members.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        var object: [UInt8] = []
        object.reserveCapacity(224)
        object.append(UInt8(ascii: "{"))
        for (index, member) in members.enumerated() {
            if index > 0 { object.append(UInt8(ascii: ",")) }
            object.appendJSONString(member.key)
            object.append(UInt8(ascii: ":"))
            member.value.write(to: &object)
        }
        object.append(UInt8(ascii: "}"))
        return object
    }
}

/// One member's value in a hand-written reading object.
private enum MemberValue {
    case string(String)
    case number(String)
    case integer(Int)
    case unsigned(UInt64)
    case time(Timestamp)
    case null

    func write(to bytes: inout [UInt8]) {
        switch self {
        case .string(let text): bytes.appendJSONString(text)
        case .number(let text): bytes.append(contentsOf: text.utf8)
        case .integer(let number): bytes.appendDecimal(number)
        case .unsigned(let number): bytes.appendDecimal(number)
        case .time(let time):
            bytes.append(UInt8(ascii: "\""))
            time.appendRFC3339(to: &bytes)
            bytes.append(UInt8(ascii: "\""))
        case .null: bytes.append(contentsOf: "null".utf8)
        }
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
