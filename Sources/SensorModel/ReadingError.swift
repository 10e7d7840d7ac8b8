/// Why a value a sensor sent could not be turned into a ``Measurement``.
///
/// Decoding never traps and never guesses: every value that is not a clean, plausible
/// temperature ends here, with the bytes that caused it.
public struct ReadingError: Error, Sendable, Equatable {
    /// The class of problem.
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// The value has no bytes (or, for text, only tolerated padding).
        case empty
        /// A text value is not valid UTF-8.
        case notUTF8
        /// The value does not have the profile's shape (wrong length, stray characters, …).
        case malformed
        /// A text value has a number but no unit letter.
        case missingUnit
        /// A text value's unit is neither C nor F.
        case unknownUnit
        /// A text value's number is not a plain finite decimal (`nan`, `inf`, `1e3`, `abc`).
        case notANumber
        /// The temperature lies outside ``ReadingLimits/plausibleCelsius``.
        case outOfRange
        /// The value is longer than ``ReadingLimits/maximumValueLength`` bytes.
        case oversized
        /// A binary value holds a special "no reading" code (IEEE-11073 NaN, NRes, ±INF; ESS 0x8000).
        case unsupportedValue

        /// A short human phrase naming the problem.
        public var summary: String {
            switch self {
            case .empty: "empty temperature value"
            case .notUTF8: "temperature value is not UTF-8 text"
            case .malformed: "malformed temperature value"
            case .missingUnit: "temperature value has no unit"
            case .unknownUnit: "unknown temperature unit"
            case .notANumber: "temperature is not a number"
            case .outOfRange: "implausible temperature"
            case .oversized: "temperature value is too long"
            case .unsupportedValue: "thermometer reports no valid temperature"
            }
        }
    }

    /// The class of problem.
    public var kind: Kind
    /// The characteristic value exactly as received.
    public var raw: [UInt8]
    /// Specifics for people, e.g. `unit "K" is not C or F`; `nil` when the kind says it all.
    public var detail: String?

    /// Creates an error for a value.
    public init(_ kind: Kind, raw: [UInt8], detail: String? = nil) {
        self.kind = kind
        self.raw = raw
        self.detail = detail
    }
}

extension ReadingError: CustomStringConvertible {
    /// The problem, any detail, and the raw bytes rendered safely for a log line.
    ///
    /// For example: `unknown temperature unit: unit "K" is not C or F; raw "44.7 K" (6 bytes)`.
    public var description: String {
        var text = kind.summary
        if let detail { text += ": " + detail }
        return text + "; raw " + RawValueRendering.render(raw)
    }
}
