#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process environment as a dictionary, so callers can take it as a parameter and
/// tests can pass their own.
public enum ProcessEnvironment {
    /// A snapshot of `environ`; for a name given twice, the first wins, as `getenv` does.
    public static var current: [String: String] {
        var result: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            let text = String(cString: pointer)
            if let equals = text.firstIndex(of: "=") {
                let name = String(text[..<equals])
                if result[name] == nil {
                    result[name] = String(text[text.index(after: equals)...])
                }
            }
            entry += 1
        }
        return result
    }

    /// The variables systemd addresses to one process: sd_notify's socket, socket
    /// activation's descriptors, the watchdog. A child that inherited them could report
    /// readiness, or claim descriptors, in that process's name.
    public static let serviceManagerVariables: Set<String> = [
        "NOTIFY_SOCKET", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES", "WATCHDOG_USEC", "WATCHDOG_PID",
    ]

    /// The environment to give a child: `environment` without ``serviceManagerVariables``.
    public static func forChildren(_ environment: [String: String] = current) -> [String: String] {
        environment.filter { !serviceManagerVariables.contains($0.key) }
    }
}
