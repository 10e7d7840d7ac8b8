import SensorModel

/// The text format of the Pi cputemp peripheral: a decimal number and a unit letter.
///
/// Grammar, after the tolerated padding is removed:
///
///     value  = number [blanks] unit
///     number = ["+" | "-"] digits ["." digits]        ; ASCII digits only
///     unit   = ["°"] ("C" | "c" | "F" | "f")
///     blanks = 1*(" " | TAB)
///
/// Decisions, each chosen to accept what real peripherals send and nothing ambiguous:
/// - Padding: leading/trailing spaces, tabs, CR and LF are ignored, and so are trailing NUL
///   bytes (C firmwares often send a fixed-size, NUL-padded buffer). NUL or any other control
///   character elsewhere makes the value ``ReadingError/Kind/malformed``.
/// - Case: `c`/`f` are accepted; a lower-case letter cannot mean anything else.
/// - Separator: the blank between number and unit is optional (`"44.7C"` is accepted).
/// - Numbers: plain decimals only. `nan`, `inf`, exponents (`1e3`), hex, commas and bare
///   dots (`.5`, `5.`) are ``ReadingError/Kind/notANumber``. Negative numbers are fine.
/// - More than two blank-separated parts (`"44.7 C F"`) is ``ReadingError/Kind/malformed``.
enum TemperatureText {
    /// Decodes a temperature value such as `"112.5 F"` or `"-3.0 C"`.
    static func decode(_ raw: [UInt8], profile: ProfileID) -> Result<Measurement, ReadingError> {
        decodeASCII(raw, profile: profile) ?? decodeScalars(raw, profile: profile)
    }

    /// ``decode(_:profile:)`` over Unicode scalars: any value, and the reason a wrong one is wrong.
    static func decodeScalars(_ raw: [UInt8], profile: ProfileID) -> Result<Measurement, ReadingError> {
        let text: String
        switch trimmedText(raw) {
        case .success(let trimmed): text = trimmed
        case .failure(let error): return .failure(error)
        }
        let numberToken: Substring.UnicodeScalarView
        let unitToken: Substring.UnicodeScalarView
        switch twoTokens(Substring(text).unicodeScalars) {
        case (let glued, nil)?:
            (numberToken, unitToken) = splitGlued(glued)
        case (let number, let unit?)?:
            (numberToken, unitToken) = (number, unit)
        case nil:
            return .failure(
                ReadingError(.malformed, raw: raw, detail: #"expected "<number> <unit>""#))
        }
        guard let number = decimal(numberToken) else {
            return .failure(
                ReadingError(
                    .notANumber, raw: raw,
                    detail: "\(RawValueRendering.render(part: String(numberToken))) is not a decimal number"))
        }
        guard !unitToken.isEmpty else {
            return .failure(
                ReadingError(.missingUnit, raw: raw, detail: "expected C or F after the number"))
        }
        guard let unit = unit(unitToken) else {
            return .failure(unknownUnit(unitToken, raw: raw))
        }
        return ReadingLimits.reading(profile, value: number, unit: unit, raw: raw, rawText: text)
    }

    /// Checks length and encoding, then strips the tolerated padding.
    private static func trimmedText(_ raw: [UInt8]) -> Result<String, ReadingError> {
        if let error = ReadingLimits.checkLength(raw) { return .failure(error) }
        guard let text = String(validating: raw, as: UTF8.self) else {
            return .failure(ReadingError(.notUTF8, raw: raw))
        }
        var scalars = Substring(text).unicodeScalars
        while let last = scalars.last, last == "\0" || isPadding(last) { scalars.removeLast() }
        while let first = scalars.first, isPadding(first) { scalars.removeFirst() }
        if scalars.isEmpty {
            return .failure(ReadingError(.empty, raw: raw, detail: "only padding"))
        }
        if let bad = scalars.first(where: { isControl($0) && !isBlank($0) }) {
            return .failure(
                ReadingError(
                    .malformed, raw: raw,
                    detail: "control character \(RawValueRendering.render(part: String(bad)))"))
        }
        return .success(String(scalars))
    }

    /// The blank-separated tokens of `text` when there are one or two; nil otherwise.
    /// (A scan, not `split`, which builds an array for every notification.)
    private static func twoTokens(
        _ text: Substring.UnicodeScalarView
    ) -> (Substring.UnicodeScalarView, Substring.UnicodeScalarView?)? {
        var first: Substring.UnicodeScalarView?
        var second: Substring.UnicodeScalarView?
        var index = text.startIndex
        while true {
            while index < text.endIndex, isBlank(text[index]) { text.formIndex(after: &index) }
            guard index < text.endIndex else { break }
            let start = index
            while index < text.endIndex, !isBlank(text[index]) { text.formIndex(after: &index) }
            if first == nil {
                first = text[start..<index]
            } else if second == nil {
                second = text[start..<index]
            } else {
                return nil
            }
        }
        return first.map { ($0, second) }
    }

    /// Splits `"44.7C"` into number and unit at the trailing run of non-numeric characters.
    ///
    /// A token that ends in a digit (`"44.7"`) has no unit; one with no digit or dot at all
    /// (`"nan"`) is taken whole as the number, so it reads as not a number, not as a strange unit.
    private static func splitGlued(
        _ token: Substring.UnicodeScalarView
    ) -> (Substring.UnicodeScalarView, Substring.UnicodeScalarView) {
        guard let lastNumeric = token.lastIndex(where: { isDigit($0) || $0 == "." }) else {
            return (token, token[token.endIndex...])
        }
        let unitStart = token.index(after: lastNumeric)
        return (token[..<unitStart], token[unitStart...])
    }

    /// Parses `["+" | "-"] digits ["." digits]`; `nil` for anything else.
    private static func decimal(_ token: Substring.UnicodeScalarView) -> Double? {
        var rest = token
        if let sign = rest.first, sign == "+" || sign == "-" { rest.removeFirst() }
        // digits ["." digits]: one scan, no allocation (this runs for every notification).
        var digitsBefore = 0
        var digitsAfter = 0
        var dots = 0
        for scalar in rest {
            if scalar == "." {
                dots += 1
            } else if isDigit(scalar) {
                if dots == 0 { digitsBefore += 1 } else { digitsAfter += 1 }
            } else {
                return nil
            }
        }
        guard digitsBefore > 0, dots == 0 || (dots == 1 && digitsAfter > 0) else { return nil }
        // The text is now a plain decimal, which Double parses with correct rounding.
        return Double(String(token))
    }

    /// Parses `["°"] ("C" | "c" | "F" | "f")`; `nil` for anything else.
    private static func unit(_ token: Substring.UnicodeScalarView) -> TemperatureUnit? {
        var letters = token
        if letters.first == "°" { letters.removeFirst() }
        guard letters.count == 1, let letter = letters.first else { return nil }
        switch letter {
        case "C", "c": return .celsius
        case "F", "f": return .fahrenheit
        default: return nil
        }
    }

    private static func unknownUnit(_ token: Substring.UnicodeScalarView, raw: [UInt8])
        -> ReadingError
    {
        ReadingError(
            .unknownUnit, raw: raw,
            detail: "\(RawValueRendering.render(part: String(token))) is not C or F")
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
        ("0"..."9").contains(scalar)
    }

    /// General category Cc (C0, DEL and C1), without the Unicode property lookup.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    private static func isBlank(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t"
    }

    private static func isPadding(_ scalar: Unicode.Scalar) -> Bool {
        isBlank(scalar) || scalar == "\r" || scalar == "\n"
    }
}
