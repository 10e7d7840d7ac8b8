/// Why a value a sensor sent could not be turned into a ``Measurement``.
///
/// Decoding never traps and never guesses: every value (a characteristic's or an
/// advertisement's) that is not clean and plausible ends here, with the bytes that caused it.
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
        /// A quantity lies outside its plausible range (for a temperature,
        /// `ReadingLimits.plausibleCelsius`); the detail names the quantity.
        case outOfRange
        /// The value is longer than ``ReadingLimits/maximumValueLength`` bytes.
        case oversized
        /// A binary value holds a special "no reading" code (IEEE-11073 NaN, NRes, ±INF; ESS 0x8000).
        case unsupportedValue
        /// An advertisement holds an object whose id the decoder does not know, so the length
        /// of everything after it is unknown too (BTHome).
        case unknownObject
        /// An advertisement announces a format version the decoder does not read.
        case unsupportedVersion
        /// An advertisement is encrypted and no key is configured for the device.
        case missingKey
        /// An encrypted advertisement failed authentication: the key is wrong or the packet
        /// was corrupted or forged.
        case decryptionFailed
        /// An authentic encrypted advertisement whose counter is below the last one accepted:
        /// a replay, dropped (see `ReplayGuard` for the rule).
        case replayed
        /// A device that has a key sent an advertisement that is not encrypted: a downgrade,
        /// dropped.
        case unencrypted

        /// A short human phrase naming the problem.
        public var summary: String {
            switch self {
            case .empty: "empty temperature value"
            case .notUTF8: "temperature value is not UTF-8 text"
            case .malformed: "malformed temperature value"
            case .missingUnit: "temperature value has no unit"
            case .unknownUnit: "unknown temperature unit"
            case .notANumber: "temperature is not a number"
            case .outOfRange: "implausible value"
            case .oversized: "temperature value is too long"
            case .unsupportedValue: "thermometer reports no valid temperature"
            case .unknownObject: "unknown object in advertisement"
            case .unsupportedVersion: "unsupported advertisement format version"
            case .missingKey: "encrypted advertisement and no key for the device"
            case .decryptionFailed: "advertisement failed decryption (wrong key or corrupted packet)"
            case .replayed: "replayed advertisement (counter went backwards)"
            case .unencrypted: "unencrypted advertisement from a device that has a key"
            }
        }
    }

    /// The class of problem.
    public var kind: Kind
    /// The characteristic value or advertisement payload exactly as received.
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
