/// Why a setting's value was refused; the caller adds where it came from (a file's line, a flag).
public struct SettingError: Error, Equatable, Sendable {
    /// What was wrong, for a person.
    public var message: String

    /// Creates an error with its message.
    public init(_ message: String) {
        self.message = message
    }
}

/// How a setting's value is written.
public enum SettingKind: String, Sendable {
    /// One value.
    case single
    /// One value, or nothing (`key =` in the file) for the default.
    case optional
    /// A comma-separated list in the file, a repeated option on the command line.
    case list
    /// `yes`/`no` in the file, a flag (meaning yes) on the command line.
    case boolean
}

/// One setting of a configuration `Root`: its file key, its command-line flag, its help, and
/// how a value is parsed into `Root`.
///
/// A module declares its settings in one table beside its configuration, whose stored
/// properties hold the defaults; a program composes the tables of its modules with
/// ``lifted(into:)``, so a setting is declared once and read by the file, the command line
/// and the documentation alike.
public struct Setting<Root>: Sendable {
    /// The file key, `snake_case`.
    public let key: String
    /// The command-line option without dashes, if the setting has one.
    public let flag: String?
    /// How the value is written.
    public let kind: SettingKind
    /// The placeholder of its value in help (`SECONDS`); empty for a yes/no setting.
    public let valueName: String
    /// What it does, for a person.
    public let help: String
    /// The paragraph the man page and the sample configuration carry for it: what it does,
    /// its values, units and range, in scdoc's markup (`*bold*`, `_italic_`). The documents
    /// add its option and, unless the paragraph speaks of it (a default computed at start),
    /// its default.
    public let details: String?
    /// Its value in `Root` as the file spells it (`30d`, `yes`, empty for none): the sample
    /// configuration's `# key = default` line shows it for the default `Root`.
    public let shown: (@Sendable (Root) -> String)?
    /// Applies the values (one unless ``kind`` is `.list`, none for an empty optional).
    public let apply: @Sendable (inout Root, [String]) throws(SettingError) -> Void

    /// Creates a setting from its parts.
    public init(
        key: String, flag: String?, kind: SettingKind, valueName: String, help: String, details: String? = nil,
        shown: (@Sendable (Root) -> String)? = nil,
        apply: @escaping @Sendable (inout Root, [String]) throws(SettingError) -> Void
    ) {
        self.key = key
        self.flag = flag
        self.kind = kind
        self.valueName = valueName
        self.help = help
        self.details = details
        self.shown = shown
        self.apply = apply
    }

    /// The same setting with its long documentation, and how its value is spelled when its
    /// factory cannot tell (a value parsed by a closure of its own).
    public func documented(_ details: String, shown: (@Sendable (Root) -> String)? = nil) -> Setting {
        Setting(
            key: key, flag: flag, kind: kind, valueName: valueName, help: help, details: details,
            shown: shown ?? self.shown, apply: apply)
    }

    /// The command-line option, for help and the argument parser; nil without a flag.
    public var option: OptionSpec? {
        guard let flag else { return nil }
        switch kind {
        case .single, .optional: return .value(flag, valueName, help: help)
        case .list: return .repeated(flag, valueName, help: help)
        case .boolean: return .flag(flag, help: help)
        }
    }

    /// The same setting, applied to the part at `path` of a larger configuration.
    public func lifted<Outer>(into path: any WritableKeyPath<Outer, Root> & Sendable) -> Setting<Outer> {
        let apply = apply
        let shown = shown.map { shown in { @Sendable (outer: Outer) in shown(outer[keyPath: path]) } }
        return Setting<Outer>(
            key: key, flag: flag, kind: kind, valueName: valueName, help: help, details: details, shown: shown
        ) { outer, values throws(SettingError) in try apply(&outer[keyPath: path], values) }
    }
}

extension Setting {
    /// A setting of one value, parsed into the property at `path`; its value is shown as
    /// `"\(value)"` unless ``documented(_:shown:)`` says otherwise.
    public static func value<Value>(
        _ key: String, flag: String? = nil, _ valueName: String, _ help: String,
        at path: any WritableKeyPath<Root, Value> & Sendable,
        parse: @escaping @Sendable (String) throws(SettingError) -> Value
    ) -> Setting {
        Setting(
            key: key, flag: flag, kind: .single, valueName: valueName, help: help,
            shown: { "\($0[keyPath: path])" }
        ) { root, values throws(SettingError) in root[keyPath: path] = try parse(values[0])
        }
    }

    /// A setting of one value or none (`key =`: nil, the default), at `path`.
    public static func optional<Value>(
        _ key: String, flag: String? = nil, _ valueName: String, _ help: String,
        at path: any WritableKeyPath<Root, Value?> & Sendable,
        parse: @escaping @Sendable (String) throws(SettingError) -> Value
    ) -> Setting {
        Setting(
            key: key, flag: flag, kind: .optional, valueName: valueName, help: help,
            shown: { $0[keyPath: path].map { "\($0)" } ?? "" }
        ) { root, values throws(SettingError) in
            root[keyPath: path] = try values.first.map { value throws(SettingError) in try parse(value) }
        }
    }

    /// A list (comma-separated in the file, a repeated option on the command line), parsed
    /// as a whole into the property at `path`.
    public static func list<Value>(
        _ key: String, flag: String? = nil, _ valueName: String, _ help: String,
        at path: any WritableKeyPath<Root, Value> & Sendable,
        parse: @escaping @Sendable ([String]) throws(SettingError) -> Value
    ) -> Setting {
        Setting(key: key, flag: flag, kind: .list, valueName: valueName, help: help) {
            root, values throws(SettingError) in root[keyPath: path] = try parse(values)
        }
    }

    /// A whole number within `range`, at `path` (`Int`, `Int32`, `Int64`…).
    public static func integer<Value: FixedWidthInteger & Sendable>(
        _ key: String, flag: String? = nil, _ valueName: String, _ help: String,
        at path: any WritableKeyPath<Root, Value> & Sendable, within range: ClosedRange<Int>
    ) -> Setting {
        value(key, flag: flag, valueName, help, at: path) { text throws(SettingError) in
            Value(try ValueParser.integer(text, within: range))
        }
    }

    /// A duration within `range`, at `path`.
    public static func duration(
        _ key: String, flag: String? = nil, _ valueName: String, _ help: String,
        at path: any WritableKeyPath<Root, Duration> & Sendable, within range: ClosedRange<Duration>
    ) -> Setting {
        Setting(
            key: key, flag: flag, kind: .single, valueName: valueName, help: help,
            shown: { DurationText.spelling($0[keyPath: path]) }
        ) { root, values throws(SettingError) in
            root[keyPath: path] = try ValueParser.duration(values[0], within: range)
        }
    }

    /// A yes/no setting at `path`; its flag, if any, means yes.
    public static func boolean(
        _ key: String, flag: String? = nil, _ help: String, at path: any WritableKeyPath<Root, Bool> & Sendable
    ) -> Setting {
        Setting(
            key: key, flag: flag, kind: .boolean, valueName: "", help: help,
            shown: { $0[keyPath: path] ? "yes" : "no" }
        ) { root, values throws(SettingError) in root[keyPath: path] = try ValueParser.boolean(values[0])
        }
    }
}

/// Parsers for setting values; each throws a message naming what was expected.
public enum ValueParser {
    /// A whole number within `range`.
    public static func integer(_ text: String, within range: ClosedRange<Int>) throws(SettingError) -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw SettingError("expected a whole number from \(range.lowerBound) to \(range.upperBound), got '\(text)'")
        }
        return value
    }

    /// Seconds with an optional unit: `2`, `1.5s`, `500ms`, `2m`, `24h`, `30d` (``DurationText``).
    public static func duration(_ text: String, within range: ClosedRange<Duration>) throws(SettingError) -> Duration {
        guard DurationText.seconds(text) != nil else {
            throw SettingError("expected a duration such as 10, 2.5s or 500ms, got '\(text)'")
        }
        // A number too large for a Duration (`1e300d`) is out of range, not a trap.
        guard let duration = DurationText.parse(text), range.contains(duration) else {
            throw SettingError("'\(text)' is out of range (\(range.lowerBound) to \(range.upperBound))")
        }
        return duration
    }

    /// `yes`, `true`, `on`, `1` or `no`, `false`, `off`, `0`, in any case.
    public static func boolean(_ text: String) throws(SettingError) -> Bool {
        switch text.lowercased() {
        case "yes", "true", "on", "1": return true
        case "no", "false", "off", "0": return false
        default: throw SettingError("expected yes or no, got '\(text)'")
        }
    }

    /// An absolute path; `key` names the setting in the message.
    public static func absolutePath(_ text: String, key: String) throws(SettingError) -> String {
        guard text.hasPrefix("/") else { throw SettingError("\(key) must be an absolute path, got '\(text)'") }
        return text
    }
}
