#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A failed system call: which operation failed and the `errno` it left.
public struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What was being done, e.g. `"connect(/run/blectl/blectld.sock)"`.
    public var operation: String
    /// The `errno` value the call left.
    public var code: Int32

    /// Creates an error for `operation` with an explicit `errno` value.
    public init(_ operation: String, code: Int32) {
        self.operation = operation
        self.code = code
    }

    /// Captures the current `errno` for `operation`.
    public static func current(_ operation: String) -> SystemError {
        SystemError(operation, code: errno)
    }

    /// The C library's text for `code`, e.g. "No such file or directory".
    public var reason: String {
        String(cString: strerror(code))
    }

    /// A readable form, for logs and messages.
    public var description: String {
        "\(operation): \(reason)"
    }
}

/// Calls `body` until it does not fail with `EINTR`; returns its result.
///
/// A signal arriving during a blocking call makes it fail with `EINTR`; the call itself
/// did nothing, so repeating it is always right.
@inline(__always)
func retryingEINTR<T: FixedWidthInteger>(_ body: () -> T) -> T {
    while true {
        let result = body()
        if result == -1 && errno == EINTR { continue }
        return result
    }
}

/// Returns `result`, or throws the current `errno` as a ``SystemError`` when it is -1.
@inline(__always)
func valueOrErrno<T: FixedWidthInteger>(_ operation: @autoclosure () -> String, _ result: T) throws(SystemError)
    -> T
{
    if result == -1 {
        let code = errno  // read before building the message can disturb it
        throw SystemError(operation(), code: code)
    }
    return result
}
