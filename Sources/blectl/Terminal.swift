import SensorModel
import BlectlProtocol
import Glibc
import UnixSupport

/// Writes blectl's output: text or JSON, colour only on a terminal without `NO_COLOR`,
/// temperatures in the display unit.
struct Terminal {
    /// A colour for a piece of text.
    enum Color: String {
        case green = "32"
        case yellow = "33"
        case red = "31"
        case dim = "2"
        case bold = "1"
    }

    var json: Bool
    var color: Bool
    /// The unit text shows temperatures in (`--unit`, `BLECTL_UNIT`); JSON keeps `celsius`.
    var unit: TemperatureUnit

    init(json: Bool, unit: TemperatureUnit = .celsius, environment: [String: String]) {
        self.json = json
        self.unit = unit
        let noColor = !(environment["NO_COLOR"] ?? "").isEmpty || environment["TERM"] == "dumb"
        color = !json && !noColor && isatty(STDOUT_FILENO) != 0
    }

    /// Writes one line to stdout at once (stdout may be a pipe: no stdio buffering).
    func print(_ line: String) {
        writeAll(STDOUT_FILENO, Array((line + "\n").utf8))
    }

    /// Writes `value` as one line of JSON.
    func printJSON(_ value: some Encodable) {
        print((try? JSONLines.encodeString(value)) ?? "null")
    }

    /// Writes JSON as the daemon sent it (fields this build does not know included).
    func printRaw(_ json: ArraySlice<UInt8>) {
        writeAll(STDOUT_FILENO, Array(json) + [UInt8(ascii: "\n")])
    }

    /// A temperature in the display unit: `21.5 °C`, `70.7 °F`.
    func temperature(_ celsius: Double) -> String {
        Format.temperature(celsius, in: unit)
    }

    func paint(_ text: String, _ color: Color) -> String {
        self.color ? "\u{1B}[\(color.rawValue)m\(text)\u{1B}[0m" : text
    }

    /// Rows as columns separated by two spaces; `paint` colours a cell after padding so
    /// escape codes do not upset the alignment.
    func table(_ rows: [[String]], paint: (_ row: Int, _ column: Int, _ text: String) -> String = { $2 }) -> [String] {
        let columns = rows.map(\.count).max() ?? 0
        let widths = (0..<columns).map { column in rows.map { column < $0.count ? $0[column].count : 0 }.max() ?? 0 }
        return rows.enumerated().map { index, row in
            row.enumerated().map { column, cell in
                let padded =
                    column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
                return paint(index, column, padded)
            }.joined(separator: "  ")
        }
    }
}

/// Formatting shared by the commands.
enum Format {
    /// `celsius` in `unit`, to a tenth of a degree.
    static func temperature(_ celsius: Double, in unit: TemperatureUnit) -> String {
        let value = unit == .fahrenheit ? celsius * 9 / 5 + 32 : celsius
        let tenths = (value * 10).rounded() / 10
        return "\(tenths == 0 ? 0 : tenths) °\(unit.rawValue)"
    }

    /// `text` cut or padded to exactly `width` characters, so a stream's columns stay put.
    static func fit(_ text: String, _ width: Int) -> String {
        text.count > width
            ? text.prefix(width - 1) + "…" : text + String(repeating: " ", count: width - text.count)
    }

    /// `text` broken into lines of at most `width` characters, at spaces; paragraphs
    /// (separated by a blank line) stay apart.
    static func wrap(_ text: String, width: Int) -> String {
        text.split(separator: "\n\n").map { wrapParagraph($0, width: width) }.joined(separator: "\n\n")
    }

    private static func wrapParagraph(_ text: Substring, width: Int) -> String {
        var lines: [String] = []
        var line = ""
        for word in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            if !line.isEmpty && line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        return (lines + [line]).joined(separator: "\n")
    }

    /// `text` padded on the left to `width` characters (numbers line up on the right).
    static func rightAligned(_ text: String, _ width: Int) -> String {
        String(repeating: " ", count: max(0, width - text.count)) + text
    }

    /// "just now", "2 s ago", "5 min ago", "3 h ago", "2 d ago".
    static func age(seconds: Double) -> String {
        switch seconds {
        case ..<1: "just now"
        case ..<60: "\(Int(seconds)) s ago"
        case ..<3600: "\(Int(seconds / 60)) min ago"
        case ..<86_400: "\(Int(seconds / 3600)) h ago"
        default: "\(Int(seconds / 86_400)) d ago"
        }
    }

    /// Seconds since `time`, by this machine's clock.
    static func secondsSince(_ time: Timestamp) -> Double {
        max(0, Double(Timestamp.now().millisecondsSince1970 - time.millisecondsSince1970) / 1000)
    }

    /// The local time of day, `HH:MM:SS`.
    static func clock(_ time: Timestamp) -> String {
        let parts = localParts(time)
        return "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
    }

    /// The local date and time, `YYYY-MM-DD HH:MM:SS`.
    static func localDateTime(_ time: Timestamp) -> String {
        let parts = localParts(time)
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) \(clock(time))"
    }

    private static func localParts(_ time: Timestamp) -> tm {
        var seconds = time_t((Double(time.millisecondsSince1970) / 1000).rounded(.down))
        var parts = tm()
        localtime_r(&seconds, &parts)
        return parts
    }

    private static func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }

    static func name(_ name: String?) -> String {
        name ?? "(unnamed)"
    }

    /// The quantities beside the temperature, when the profile measures them:
    /// `48.5 %RH  87 %  1013.2 hPa  3.02 V  812 ppm CO₂  dew point 9.6 °C`
    /// (the dew point in the display unit).
    static func quantities(_ values: OtherQuantities, unit: TemperatureUnit) -> String {
        func number(_ value: Double, _ places: Double) -> String {
            let rounded = (value * places).rounded() / places
            return rounded == rounded.rounded() ? "\(Int(rounded))" : "\(rounded)"
        }
        return [
            values.humidity.map { number($0, 10) + " %RH" }, values.battery.map { number($0, 1) + " %" },
            values.pressure.map { number($0, 10) + " hPa" }, values.voltage.map { number($0, 100) + " V" },
            values.co2.map { number($0, 1) + " ppm CO₂" },
            values.dewPoint.map { "dew point " + temperature($0, in: unit) },
        ].compactMap { $0 }.joined(separator: "  ")
    }

    /// How text shows where a value came from: the text a device sent (`(raw "112.5 F")`),
    /// else the profile's name (`[bthome]`: the payload's bytes are in `--json`).
    ///
    /// The protocol writes a payload as lower-case hex, two digits a byte; a raw value of
    /// any other shape is text from the device.
    static func origin(profile: String?, raw: String?) -> String {
        guard let profile, let raw, isHexBytes(raw) else { return raw.map { "(raw \"\($0)\")" } ?? "" }
        return "[\(profile)]"
    }

    /// Whether `text` is bytes in lower-case hex: an even count of `0-9a-f`, at least one byte.
    static func isHexBytes(_ text: String) -> Bool {
        let digits = text.utf8
        return !digits.isEmpty && digits.count % 2 == 0
            && digits.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}

/// A reading's quantities other than the temperature, as `--json` names them.
struct OtherQuantities: Decodable, Equatable {
    var humidity: Double?
    var battery: Double?
    var pressure: Double?
    var voltage: Double?
    var co2: Double?
    var dewPoint: Double?

    private enum CodingKeys: String, CodingKey {
        case humidity, battery, pressure, voltage, co2
        case dewPoint = "dew_point"
    }
}
