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
}
