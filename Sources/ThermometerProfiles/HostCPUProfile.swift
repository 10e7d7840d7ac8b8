public import SensorModel

/// The gateway's own CPU temperature: a Linux thermal zone's `temp` file, millidegrees
/// Celsius as a whole number in text (`"47312\n"`).
///
/// Not a Bluetooth format, but a family like the others, so that outputs name and describe
/// the gateway's CPU as they do every sensor.
public enum HostCPUProfile {
    /// The family: text, one temperature, no counter.
    public static let family = SensorFamily(
        id: "host-cpu", name: "Host CPU temperature", manufacturer: "Linux", models: ["thermal zone"],
        quantities: [.temperature], sendsText: true)

    /// Decodes the contents of a `temp` file read from `path` (named in errors).
    public static func decode(_ contents: String, path: String) -> Result<Measurement, ReadingError> {
        // One word, with the newline sysfs ends it with (and any other space) around it.
        let words = contents.split(whereSeparator: \.isWhitespace)
        let trimmed = words.count == 1 ? String(words[0]) : contents
        let raw = Array(trimmed.utf8)
        guard words.count == 1, let millidegrees = Int(trimmed) else {
            return .failure(ReadingError(.notANumber, raw: raw, detail: "\(path) is not a whole number"))
        }
        let celsius = (Double(millidegrees) / 10).rounded() / 100
        guard ReadingLimits.plausibleRange(of: .temperature).contains(celsius) else {
            return .failure(ReadingError(.outOfRange, raw: raw, detail: "temperature \(celsius) °C"))
        }
        return .success(Measurement(profile: family.id, quantities: Quantities([.temperature: celsius]), raw: trimmed))
    }
}
