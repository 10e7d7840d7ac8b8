import SensorModel

extension Timestamp {
    /// Parses RFC 3339 text, `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`, with or without
    /// fractional seconds; a fraction finer than milliseconds is rounded to the nearest one
    /// (a half up). Nil for anything else, including impossible dates and times.
    public init?(rfc3339 text: String) {
        var reader = RFC3339Reader(bytes: Array(text.utf8))
        guard let year = reader.digits(4), reader.skip("-"), let month = reader.digits(2), reader.skip("-"),
            let day = reader.digits(2), reader.skip("T") || reader.skip("t"),
            let hour = reader.digits(2), reader.skip(":"), let minute = reader.digits(2), reader.skip(":"),
            let second = reader.digits(2)
        else { return nil }
        var milliseconds: Int64 = 0
        if reader.skip(".") {
            guard let fraction = reader.fractionInMilliseconds() else { return nil }
            milliseconds = fraction
        }
        guard let offsetMinutes = reader.offsetMinutes(), reader.isAtEnd,
            (1...12).contains(month), (1...Self.daysIn(month: month, year: year)).contains(day),
            (0...23).contains(hour), (0...59).contains(minute), (0...59).contains(second)
        else { return nil }
        let days = Self.daysSince1970(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetMinutes * 60
        self.init(millisecondsSince1970: seconds * 1000 + milliseconds)
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// The day number of a proleptic Gregorian date.
    private static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        CivilDate.daysSince1970(year: year, month: month, day: day)
    }
}

/// Reads the fields of an RFC 3339 time left to right.
private struct RFC3339Reader {
    let bytes: [UInt8]
    var offset = 0

    var isAtEnd: Bool { offset == bytes.count }

    /// Consumes `character` if it is next.
    mutating func skip(_ character: Unicode.Scalar) -> Bool {
        guard offset < bytes.count, bytes[offset] == UInt8(ascii: character) else { return false }
        offset += 1
        return true
    }

    /// Exactly `count` decimal digits.
    mutating func digits(_ count: Int) -> Int64? {
        var value: Int64 = 0
        for _ in 0..<count {
            guard let digit = nextDigit() else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    /// One or more digits after the point, as milliseconds rounded half up (so `.9996` is 1000).
    mutating func fractionInMilliseconds() -> Int64? {
        var milliseconds: Int64 = 0
        var count = 0
        var roundUp = false
        while let digit = nextDigit() {
            if count < 3 { milliseconds = milliseconds * 10 + digit }
            if count == 3 { roundUp = digit >= 5 }
            count += 1
        }
        guard count > 0 else { return nil }
        for _ in count..<max(count, 3) { milliseconds *= 10 }
        return milliseconds + (roundUp ? 1 : 0)
    }

    /// `Z` (0) or `±HH:MM`, in minutes east of UTC.
    mutating func offsetMinutes() -> Int64? {
        if skip("Z") || skip("z") { return 0 }
        let sign: Int64
        if skip("+") {
            sign = 1
        } else if skip("-") {
            sign = -1
        } else {
            return nil
        }
        guard let hours = digits(2), skip(":"), let minutes = digits(2), hours <= 23, minutes <= 59 else { return nil }
        return sign * (hours * 60 + minutes)
    }

    private mutating func nextDigit() -> Int64? {
        guard offset < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[offset]) else { return nil }
        offset += 1
        return Int64(bytes[offset - 1] - UInt8(ascii: "0"))
    }
}
