import BlectlProtocol
import TestSupport
import FoundationEssentials
import Testing

@Suite("Timestamp")
struct TimestampTests {
    private func milliseconds(_ text: String) -> Int64? {
        Timestamp(rfc3339: text)?.millisecondsSince1970
    }

    @Test(
        "RFC 3339 times parse with or without a fraction, in UTC or with an offset",
        arguments: [
            ("2026-11-30T01:02:03Z", 1_796_000_523_000),
            ("2026-11-30T01:02:03.456Z", 1_796_000_523_456),
            ("2026-11-30T01:02:03.4Z", 1_796_000_523_400),
            ("2026-11-30T01:02:03.45z", 1_796_000_523_450),
            ("2026-11-30t01:02:03.456000Z", 1_796_000_523_456),
            ("2026-11-30T01:02:03.4564Z", 1_796_000_523_456),
            ("2026-11-30T01:02:03.4565Z", 1_796_000_523_457),
            ("2026-11-30T01:02:03.99951Z", 1_796_000_524_000),
            ("2026-11-30T02:02:03.456+01:00", 1_796_000_523_456),
            ("2026-11-29T19:32:03.456-05:30", 1_796_000_523_456),
            ("2026-11-30T01:02:03+00:00", 1_796_000_523_000),
            ("1970-01-01T00:00:00Z", 0),
            ("1969-12-31T23:59:59.999Z", -1),
            ("2024-02-29T00:00:00.500Z", 1_709_164_800_500),
            ("2000-02-29T12:00:00Z", 951_825_600_000),
            ("0001-01-01T00:00:00Z", -62_135_596_800_000),
            ("9999-12-31T23:59:59.999Z", 253_402_300_799_999),
        ] as [(String, Int64)])
    func valid(text: String, expected: Int64) {
        #expect(milliseconds(text) == expected)
    }

    @Test(
        "Impossible dates and other text are rejected",
        arguments: [
            "", "yesterday", "2026-13-01T00:00:00Z", "2026-00-01T00:00:00Z", "2026-11-31T00:00:00Z",
            "2026-11-00T00:00:00Z", "2025-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2026-11-30T24:00:00Z",
            "2026-11-30T23:60:00Z", "2026-11-30T23:59:60Z", "2026-11-30T01:02:03", "2026-11-30 01:02:03Z",
            "2026-11-30T01:02:03.Z", "2026-11-30T01:02:03.456+0100", "2026-11-30T01:02:03+24:00",
            "2026-11-30T01:02:03+01:60", "2026-11-30T01:02:03ZZ", "26-11-30T01:02:03Z", "20261-11-30T01:02:03Z",
            "2026-1-30T01:02:03Z", "2026-11-30T1:02:03Z", "+2026-11-30T01:02:03Z", "2026-11-30T01:02:03.45 Z",
        ])
    func invalid(text: String) {
        #expect(Timestamp(rfc3339: text) == nil)
    }

    @Test("Parsing agrees with Foundation's ISO 8601 parser, and the wire form round-trips")
    func matchesFoundation() throws {
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        for _ in 0..<500 {
            let stamp = Timestamp(millisecondsSince1970: .random(in: -2_000_000_000_000...4_000_000_000_000))
            #expect(Timestamp(rfc3339: stamp.rfc3339) == stamp)
            let date = try style.parse(stamp.rfc3339)
            #expect(Int64((date.timeIntervalSince1970 * 1000).rounded()) == stamp.millisecondsSince1970)
            let offset = Int.random(in: -14 * 60...14 * 60)
            let local = Timestamp(millisecondsSince1970: stamp.millisecondsSince1970 + Int64(offset) * 60_000)
            let sign = offset < 0 ? "-" : "+"
            let hours = abs(offset) / 60
            let minutes = abs(offset) % 60
            let zone = "\(sign)\(hours < 10 ? "0" : "")\(hours):\(minutes < 10 ? "0" : "")\(minutes)"
            let text = String(local.rfc3339.dropLast()) + zone
            #expect(Timestamp(rfc3339: text) == stamp, "\(text)")
            let foundation = try style.parse(text)
            #expect(
                Int64((foundation.timeIntervalSince1970 * 1000).rounded()) == stamp.millisecondsSince1970, "\(text)")
        }
    }

    @Test("The wire form has the calendar's UTC date and time, for any time of years 1600-9999")
    // (Foundation's Gregorian calendar is Julian before 1582; the proleptic years before are
    // checked by the parsing tests' round trip.)
    func writesCalendarsDate() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let edges: [Int64] = [0, -1, 999, 1_709_164_800_500, -11_676_096_000_000, 253_402_300_799_999]
        let random = (0..<300).map { _ in Int64.random(in: -11_676_096_000_000...253_402_300_799_999) }
        for milliseconds in edges + random {
            let second = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
            let parts = calendar.dateComponents(
                [.year, .month, .day, .hour, .minute, .second], from: Date(timeIntervalSince1970: Double(second)))
            func two(_ value: Int?) -> String { value.map { $0 < 10 ? "0\($0)" : "\($0)" } ?? "??" }
            let year = String(repeating: "0", count: 4 - String(parts.year!).count) + String(parts.year!)
            let fraction = String(milliseconds - second * 1000)
            let expected =
                "\(year)-\(two(parts.month))-\(two(parts.day))T\(two(parts.hour)):\(two(parts.minute)):"
                + "\(two(parts.second)).\(String(repeating: "0", count: 3 - fraction.count))\(fraction)Z"
            #expect(Timestamp(millisecondsSince1970: milliseconds).rfc3339 == expected, "\(milliseconds)")
        }
    }

    @Test("Years past 9999 and before 1 are written wider, and read back")
    func widerYears() {
        let late = Timestamp(millisecondsSince1970: 253_402_300_800_000)
        #expect(late.rfc3339 == "10000-01-01T00:00:00.000Z")
        #expect(Timestamp(millisecondsSince1970: -62_135_596_800_001).rfc3339 == "0000-12-31T23:59:59.999Z")
    }

    @Test("now() is the real time to the millisecond")
    func now() {
        let before = Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))
        let now = Timestamp.now().millisecondsSince1970
        let after = Int64((Date().timeIntervalSince1970 * 1000).rounded(.up))
        #expect(before...after ~= now)
    }

    @Test("Durations between timestamps")
    func durations() {
        let start = Timestamp(millisecondsSince1970: 1000)
        #expect(Timestamp(millisecondsSince1970: 3500).duration(since: start) == .milliseconds(2500))
        #expect(start.duration(since: Timestamp(millisecondsSince1970: 1250)) == .milliseconds(-250))
    }
}
