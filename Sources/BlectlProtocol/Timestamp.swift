import SensorModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A point in time, to the millisecond, that travels as an RFC 3339 UTC string,
/// e.g. `"2026-11-30T01:02:03.456Z"`.
///
/// Stored as whole milliseconds so that a timestamp survives encoding and decoding
/// exactly (a floating-point number of seconds would not). The protocol's modules use it
/// instead of Foundation's `Date` so that blectld links no Foundation.
public struct Timestamp: Codable, Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01T00:00:00Z.
    public var millisecondsSince1970: Int64

    /// The instant `millisecondsSince1970` after 1970-01-01T00:00:00Z.
    public init(millisecondsSince1970: Int64) {
        self.millisecondsSince1970 = millisecondsSince1970
    }

    /// The current time (`CLOCK_REALTIME`), rounded to the nearest millisecond.
    public static func now() -> Timestamp {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Timestamp(millisecondsSince1970: Int64(spec.tv_sec) * 1000 + (Int64(spec.tv_nsec) + 500_000) / 1_000_000)
    }

    /// The time from `earlier` to this instant; negative when `earlier` is later.
    public func duration(since earlier: Timestamp) -> Duration {
        .milliseconds(millisecondsSince1970 - earlier.millisecondsSince1970)
    }

    /// The wire form: `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    public var rfc3339: String {
        var bytes: [UInt8] = []
        appendRFC3339(to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the wire form (``rfc3339``, as UTF-8) to `bytes`.
    ///
    /// Written in place, two digits at a time: every reading line carries a time, and going
    /// through the general decimal writer for each of its seven numbers cost about 1,800
    /// instructions a line, this about 300 (callgrind, 2026-12-05).
    public func appendRFC3339(to bytes: inout [UInt8]) {
        let (seconds, milliseconds) = Self.floorDivide(millisecondsSince1970, 1000)
        let (days, secondOfDay) = Self.floorDivide(seconds, 86_400)
        let (year, month, day) = Self.civilDate(daysSince1970: days)
        guard (0...9999).contains(year) else {
            return Self.appendPadded(year, month, day, secondOfDay, milliseconds, to: &bytes)
        }
        let start = bytes.count
        bytes.append(contentsOf: "0000-00-00T00:00:00.000Z".utf8)
        bytes.withUnsafeMutableBufferPointer { buffer in
            let text = UnsafeMutableBufferPointer(rebasing: buffer[start...])
            text.writeDigits(Int(year / 100), at: 0)
            text.writeDigits(Int(year % 100), at: 2)
            text.writeDigits(Int(month), at: 5)
            text.writeDigits(Int(day), at: 8)
            text.writeDigits(Int(secondOfDay / 3600), at: 11)
            text.writeDigits(Int(secondOfDay / 60 % 60), at: 14)
            text.writeDigits(Int(secondOfDay % 60), at: 17)
            text[20] = UInt8(ascii: "0") + UInt8(milliseconds / 100)
            text.writeDigits(Int(milliseconds % 100), at: 21)
        }
    }

    /// ``appendRFC3339(to:)`` for years outside 0-9999: the year as wide as it needs (and
    /// signed), the rest as there.
    private static func appendPadded(
        _ year: Int64, _ month: Int64, _ day: Int64, _ secondOfDay: Int64, _ milliseconds: Int64,
        to bytes: inout [UInt8]
    ) {
        bytes.appendDecimal(year, width: 4)
        bytes.append(UInt8(ascii: "-"))
        bytes.appendDecimal(month, width: 2)
        bytes.append(UInt8(ascii: "-"))
        bytes.appendDecimal(day, width: 2)
        bytes.append(UInt8(ascii: "T"))
        bytes.appendDecimal(secondOfDay / 3600, width: 2)
        bytes.append(UInt8(ascii: ":"))
        bytes.appendDecimal(secondOfDay / 60 % 60, width: 2)
        bytes.append(UInt8(ascii: ":"))
        bytes.appendDecimal(secondOfDay % 60, width: 2)
        bytes.append(UInt8(ascii: "."))
        bytes.appendDecimal(milliseconds, width: 3)
        bytes.append(UInt8(ascii: "Z"))
    }

    /// A readable form, for logs and messages.
    public var description: String { rfc3339 }

    /// Decodes the wire form.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let parsed = Timestamp(rfc3339: text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "not an RFC 3339 time: \(text)")
        }
        self = parsed
    }

    /// Encodes the wire form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rfc3339)
    }

    /// Whether `lhs` is earlier than `rhs`.
    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        lhs.millisecondsSince1970 < rhs.millisecondsSince1970
    }

    private static func floorDivide(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let remainder = (value % divisor + divisor) % divisor
        return ((value - remainder) / divisor, remainder)
    }

    /// The proleptic Gregorian date of a day number.
    private static func civilDate(daysSince1970 days: Int64) -> (Int64, Int64, Int64) {
        CivilDate.date(daysSince1970: days)
    }
}

extension UnsafeMutableBufferPointer<UInt8> {
    /// Writes `value` (0-99) as two decimal digits at `index` and `index + 1`.
    fileprivate func writeDigits(_ value: Int, at index: Int) {
        self[index] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value / 10)
        self[index + 1] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: value % 10)
    }
}
