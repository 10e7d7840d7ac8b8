import Testing
import UnixSupport

@Suite("DurationText")
struct DurationTextTests {
    @Test(
        "a number of seconds with an optional unit",
        arguments: [
            ("90s", Duration.seconds(90)), ("15m", .seconds(900)), ("2min", .seconds(120)), ("24h", .seconds(86_400)),
            ("7d", .seconds(604_800)), ("1.5h", .seconds(5400)), ("500ms", .milliseconds(500)), (" 10 ", .seconds(10)),
            ("0", .zero),
        ])
    func parses(_ text: String, _ expected: Duration) {
        #expect(DurationText.parse(text) == expected)
    }

    @Test("anything else is nil", arguments: ["", "h", "-1s", "1x", "nan", "inf", "1e300d", "yesterday", "1 day"])
    func rejects(_ text: String) {
        #expect(DurationText.parse(text) == nil)
    }

    @Test(
        "a duration is spelled in the largest unit that holds it whole, and read back",
        arguments: [
            (Duration.seconds(30 * 86_400), "30d"), (.seconds(3600), "1h"), (.seconds(600), "10m"),
            (.seconds(90), "90s"), (.milliseconds(250), "250ms"), (.milliseconds(1500), "1500ms"), (.zero, "0"),
        ])
    func spells(_ duration: Duration, _ expected: String) {
        #expect(DurationText.spelling(duration) == expected)
        #expect(DurationText.parse(expected) == duration)
    }
}
