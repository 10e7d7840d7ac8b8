/// Writes the Prometheus text exposition format, version 0.0.4: per metric family a
/// `# HELP` and a `# TYPE` line, then its samples.
///
/// Label values are escaped (`\\`, `\"`, `\n`), as is help text (`\\`, `\n`); names are
/// ours and fixed. A family is written with its HELP and TYPE even without samples.
struct PrometheusText {
    /// The media type of the format.
    static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    enum Kind: String {
        case gauge, counter
    }

    private(set) var text = ""
    /// The families started so far: a name is written once.
    private(set) var families: Set<String> = []

    /// Starts a family.
    mutating func family(_ name: String, _ kind: Kind, help: String) {
        families.insert(name)
        text += "# HELP \(name) \(Self.escaped(help, quotes: false))\n# TYPE \(name) \(kind.rawValue)\n"
    }

    /// Writes one sample of the current family.
    mutating func sample(_ name: String, _ labels: KeyValuePairs<String, String>, _ value: Double) {
        text += name
        if !labels.isEmpty {
            text += "{"
            text += labels.map { "\($0.key)=\"\(Self.escaped($0.value, quotes: true))\"" }.joined(separator: ",")
            text += "}"
        }
        text += " \(Self.format(value))\n"
    }

    /// A family of one sample.
    mutating func single(_ name: String, _ kind: Kind, help: String, _ value: Double) {
        family(name, kind, help: help)
        sample(name, [:], value)
    }

    /// A family per row of `families` (name, kind, help, the value of an entry), each with a
    /// sample per entry that has a value, labelled by `labels`.
    mutating func families<Entry>(
        _ families: [Family<Entry>], of entries: [Entry], labels: (Entry) -> KeyValuePairs<String, String>
    ) {
        for (name, kind, help, value) in families {
            family(name, kind, help: help)
            for entry in entries {
                guard let value = value(entry) else { continue }
                sample(name, labels(entry), value)
            }
        }
    }

    /// A family of per-entry samples: its name, kind and help, and an entry's value (nil: no sample).
    typealias Family<Entry> = (name: String, kind: Kind, help: String, value: (Entry) -> Double?)

    /// Go's float syntax, which the format uses: `NaN`, `+Inf`, `-Inf`, whole numbers
    /// without a fraction (`3`), otherwise Swift's shortest exact form (`47.31`, `1e-05`).
    static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// `name` with every character a metric name cannot hold (anything but ASCII letters,
    /// digits, `_` and `:`) as `_`, and `_` before a leading digit.
    static func metricName(_ name: String) -> String {
        let allowed = { (scalar: Unicode.Scalar) in
            ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
                || scalar == "_" || scalar == ":"
        }
        var result = String(name.unicodeScalars.map { allowed($0) ? Character($0) : "_" })
        if let first = result.first, first.isNumber { result.insert("_", at: result.startIndex) }
        return result
    }

    static func escaped(_ text: String, quotes: Bool) -> String {
        text.replacingScalars { scalar in
            switch scalar {
            case "\\": "\\\\"
            case "\n": "\\n"
            case "\"" where quotes: "\\\""
            default: nil
            }
        }
    }
}
