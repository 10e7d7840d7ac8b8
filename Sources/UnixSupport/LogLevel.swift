/// A syslog priority as used by sd-daemon's `<N>` stderr prefixes; lower is more severe.
public enum LogLevel: Int, Comparable, CaseIterable, Sendable, CustomStringConvertible {
    case emergency = 0
    case alert = 1
    case critical = 2
    case error = 3
    case warning = 4
    case notice = 5
    case info = 6
    case debug = 7

    /// Parses a level name (`err`, `warning`, `info`, …, with common aliases) or a digit 0–7.
    public init?(name: String) {
        let lowered = name.lowercased()
        if let number = Int(lowered), let level = LogLevel(rawValue: number) {
            self = level
            return
        }
        switch lowered {
        case "emerg", "emergency": self = .emergency
        case "alert": self = .alert
        case "crit", "critical": self = .critical
        case "err", "error": self = .error
        case "warn", "warning": self = .warning
        case "notice": self = .notice
        case "info": self = .info
        case "debug": self = .debug
        default: return nil
        }
    }

    /// The canonical short name, as `systemctl` and `journalctl` print it.
    public var name: String {
        switch self {
        case .emergency: "emerg"
        case .alert: "alert"
        case .critical: "crit"
        case .error: "err"
        case .warning: "warning"
        case .notice: "notice"
        case .info: "info"
        case .debug: "debug"
        }
    }

    /// A readable form, for logs and messages.
    public var description: String { name }

    /// The accepted names, for help and error texts.
    public static let names = allCases.map(\.name).joined(separator: ", ")

    /// Whether `lhs` is less severe than `rhs`.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool {
        // A smaller number is more severe; "less than" means "less severe".
        lhs.rawValue > rhs.rawValue
    }
}
