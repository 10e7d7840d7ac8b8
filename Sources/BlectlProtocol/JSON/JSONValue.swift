/// A JSON value, between Codable types and bytes; also a `status` section as it came
/// (``StatusResult/sections``).
///
/// Numbers keep their text: the encoder writes each number type's own canonical form,
/// and the decoder converts the exact text to the requested type (an `Int64` does not
/// pass through a `Double` and lose digits).
public enum JSONValue: Equatable, Sendable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number in JSON syntax, e.g. `-12`, `40.1`, `1e+21`.
    case number(String)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object. Keys are unique; the writer sorts them.
    case object([String: JSONValue])

    /// What the value is, for error messages ("found a string instead").
    var kind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

extension JSONValue {
    /// `value` as Foundation's JSONEncoder writes it: `description`, without a trailing
    /// `.0` (so `40.0` is `40`, `1e21` is `1e+21`); not-finite values have no JSON form.
    static func number<T: BinaryFloatingPoint & LosslessStringConvertible>(
        _ value: T, codingPath: [any CodingKey]
    ) throws -> JSONValue {
        guard numberText(value) != nil else {
            throw EncodingError.invalidValue(
                value,
                EncodingError.Context(
                    codingPath: codingPath, debugDescription: "Unable to encode \(T.self).\(value) directly in JSON."))
        }
        return .number(numberText(value)!)
    }

    /// A finite `value` as Foundation's JSONEncoder writes it: `description` without a
    /// trailing `.0`; nil for NaN and the infinities.
    static func numberText(_ value: some BinaryFloatingPoint & LosslessStringConvertible) -> String? {
        guard value.isFinite else { return nil }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        return text
    }

    /// An integer in decimal.
    static func number(_ value: some BinaryInteger) -> JSONValue {
        .number(String(value))
    }
}

extension JSONValue: Codable {
    /// The value as it is, from the protocol's own decoder (numbers keep their text); from
    /// another decoder, whatever JSON value it holds.
    public init(from decoder: any Decoder) throws {
        if let decoder = decoder as? JSONValueDecoder {
            self = decoder.value
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let integer = try? container.decode(Int64.self) {
            self = .number(String(integer))
        } else if let number = try? container.decode(Double.self) {
            self = try .number(number, codingPath: decoder.codingPath)
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let elements = try? container.decode([JSONValue].self) {
            self = .array(elements)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    /// The value as it is, to the protocol's own encoder; to another encoder, in its terms
    /// (a number as the `Int64`, or else the `Double`, its text spells).
    public func encode(to encoder: any Encoder) throws {
        if let encoder = encoder as? JSONValueEncoder {
            encoder.node.set(self)
            return
        }
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let flag): try container.encode(flag)
        case .number(let text):
            if let integer = Int64(text) {
                try container.encode(integer)
            } else if let number = Double(text) {
                try container.encode(number)
            } else {
                let context = EncodingError.Context(
                    codingPath: encoder.codingPath, debugDescription: "Not a number: \(text)")
                throw EncodingError.invalidValue(text, context)
            }
        case .string(let text): try container.encode(text)
        case .array(let elements): try container.encode(elements)
        case .object(let members): try container.encode(members)
        }
    }
}

/// A coding key for array indices, `super`, and error paths.
struct JSONKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
    }

    init(intValue: Int) {
        self.stringValue = "Index \(intValue)"
        self.intValue = intValue
    }

    /// The key `superEncoder()` and `superDecoder()` use, as in Foundation.
    static let `super` = JSONKey(stringValue: "super")
}
