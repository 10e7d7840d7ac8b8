import SensorModel

extension TemperatureText {
    /// The common case of ``decode(_:profile:)`` read straight from the bytes: a well-formed
    /// ASCII value such as `"21.4 C"` or `"44.7C"`, with at most 15 digits; nil for anything
    /// else, which the general path then decodes (and explains when it is wrong).
    ///
    /// Every GATT text notification comes through here: the general path over Unicode
    /// scalars cost about 6,300 instructions a value, this about 1,000 (callgrind, 2026-12-05).
    /// It accepts a subset of what the general path accepts and gives the same result for it
    /// (a test compares the two on generated values).
    static func decodeASCII(_ raw: [UInt8], profile: ProfileID) -> Result<Measurement, ReadingError>? {
        guard ReadingLimits.checkLength(raw) == nil else { return nil }
        return raw.withUnsafeBufferPointer { bytes -> Result<Measurement, ReadingError>? in
            var end = bytes.count
            while end > 0, bytes[end - 1] == 0 || isPaddingByte(bytes[end - 1]) { end -= 1 }
            var start = 0
            while start < end, isPaddingByte(bytes[start]) { start += 1 }
            var scanner = ByteScanner(bytes: bytes, index: start, end: end)
            guard let (value, unit) = scanner.temperature() else { return nil }
            let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
            return ReadingLimits.reading(profile, value: value, unit: unit, raw: raw, rawText: text)
        }
    }

    private static func isPaddingByte(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
            || byte == UInt8(ascii: "\n")
    }
}

/// Reads `["+" | "-"] digits ["." digits] *blank ("C" | "c" | "F" | "f")` to the end of
/// `bytes[index..<end]`, and nothing else.
private struct ByteScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    var index: Int
    let end: Int

    /// The number and its unit; nil when the text is anything but that grammar.
    mutating func temperature() -> (Double, TemperatureUnit)? {
        let negative = take(UInt8(ascii: "-"))
        if !negative { _ = take(UInt8(ascii: "+")) }
        var digits: UInt64 = 0
        var count = 0
        let before = takeDigits(into: &digits, count: &count)
        var after = 0
        if take(UInt8(ascii: ".")) {
            after = takeDigits(into: &digits, count: &count)
            guard after > 0 else { return nil }
        }
        // Up to 15 digits and 10^15 are exact doubles: one correctly rounded division gives
        // what parsing the text gives.
        guard before > 0, count <= 15 else { return nil }
        while take(UInt8(ascii: " ")) || take(UInt8(ascii: "\t")) {}
        guard index + 1 == end else { return nil }
        let unit: TemperatureUnit
        switch bytes[index] {
        case UInt8(ascii: "C"), UInt8(ascii: "c"): unit = .celsius
        case UInt8(ascii: "F"), UInt8(ascii: "f"): unit = .fahrenheit
        default: return nil
        }
        let magnitude = Double(digits) / Self.powersOfTen[after]
        return (negative ? -magnitude : magnitude, unit)
    }

    private static let powersOfTen: [Double] = (0...15).map { (0..<$0).reduce(1.0) { value, _ in value * 10 } }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard index < end, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// Takes a run of ASCII digits into `digits`; returns how many.
    private mutating func takeDigits(into digits: inout UInt64, count: inout Int) -> Int {
        let first = index
        while index < end, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9"), count < 16 {
            digits = digits &* 10 &+ UInt64(bytes[index] - UInt8(ascii: "0"))
            count += 1
            index += 1
        }
        return index - first
    }
}
