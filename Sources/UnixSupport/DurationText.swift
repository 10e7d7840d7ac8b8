/// Durations as people write them in configuration files and on command lines: a number
/// of seconds with an optional unit, `10`, `2.5s`, `500ms`, `15m`, `2min`, `24h`, `7d`.
///
/// One spelling for blectld's settings (`history_retention = 30d`) and blectl's options
/// (`--since 24h`), so what works in one works in the other.
public enum DurationText {
    /// The units and their length in seconds; `ms` and `min` come before the units they end with.
    private static let units: [(suffix: String, seconds: Double)] = [
        ("ms", 0.001), ("min", 60), ("s", 1), ("m", 60), ("h", 3600), ("d", 86400),
    ]

    /// The duration `text` spells, to the millisecond; nil when it is not a non-negative
    /// number with one of the units (spaces around it are ignored), or too long for `Duration`.
    public static func parse(_ text: some StringProtocol) -> Duration? {
        guard let seconds = seconds(text) else { return nil }
        let milliseconds = (seconds * 1000).rounded()
        // Past about 292 million years Int64 milliseconds overflow.
        guard milliseconds < 9.2e18 else { return nil }
        return .milliseconds(Int64(milliseconds))
    }

    /// `duration` in the largest unit that spells it whole (`30d`, `90s`, `250ms`; `0`), as
    /// ``parse(_:)`` reads it back: the sample configuration's defaults.
    public static func spelling(_ duration: Duration) -> String {
        let milliseconds = duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
        guard milliseconds != 0 else { return "0" }
        for (suffix, length) in [("d", 86_400_000), ("h", 3_600_000), ("m", 60_000), ("s", 1000) as (String, Int64)]
        where milliseconds % length == 0 {
            return "\(milliseconds / length)\(suffix)"
        }
        return "\(milliseconds)ms"
    }

    /// The number of seconds `text` spells, however large; nil when it is not a non-negative
    /// number with one of the units.
    public static func seconds(_ text: some StringProtocol) -> Double? {
        let text = text.trimmed
        let unit = units.first { text.hasSuffix($0.suffix) }
        let number = unit.map { String(text.dropLast($0.suffix.count)) } ?? text
        guard let value = Double(number.trimmed), value.isFinite, value >= 0 else { return nil }
        let seconds = value * (unit?.seconds ?? 1)
        return seconds.isFinite ? seconds : nil
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces, tabs and carriage returns.
    public var trimmed: String {
        let isBlank = { (character: Character) in character == " " || character == "\t" || character == "\r" }
        guard let first = firstIndex(where: { !isBlank($0) }), let last = lastIndex(where: { !isBlank($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
