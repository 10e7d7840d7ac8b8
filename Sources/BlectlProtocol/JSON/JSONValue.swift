/// A JSON value, between Codable types and bytes.
///
/// Numbers keep their text: the encoder writes each number type's own canonical form,
/// and the decoder converts the exact text to the requested type (an `Int64` does not
/// pass through a `Double` and lose digits).
enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    /// A number in JSON syntax, e.g. `-12`, `40.1`, `1e+21`.
    case number(String)
    case string(String)
    case array([JSONValue])
    /// Keys are unique; the writer sorts them.
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
