#if canImport(Glibc)
    public import Glibc
#endif

/// Sends sd_notify(3) state changes to the service manager over `NOTIFY_SOCKET`.
///
/// Without `NOTIFY_SOCKET` (not started by systemd, or `Type=simple`) every call is a
/// no-op, so the daemon can call it unconditionally. Each message opens its own datagram
/// socket, as systemd's self-contained example does: messages are rare and this keeps
/// the type free of state.
public struct SystemdNotifier: Sendable {
    /// The notification socket (a path, or `@name` for an abstract socket), if any.
    public let socketPath: String?

    /// Reads `NOTIFY_SOCKET` from `environment`; only `/path` and `@abstract` are supported.
    public init(environment: [String: String] = ProcessEnvironment.current) {
        let path = environment["NOTIFY_SOCKET"] ?? ""
        socketPath = path.hasPrefix("/") || path.hasPrefix("@") ? path : nil
    }

    /// Whether there is a service manager to notify.
    public var isEnabled: Bool { socketPath != nil }

    /// Sends newline-separated `KEY=value` assignments in one datagram.
    public func send(_ assignments: [String]) throws(SystemError) {
        guard let socketPath else { return }
        let message = Array(assignments.joined(separator: "\n").utf8)
        let fd = try UnixSocket.makeSocket(type: SOCK_DGRAM, nonBlocking: false)
        defer { close(fd) }
        let sent = try UnixSocket.withAddress(socketPath) { address, length in
            message.withUnsafeBytes { bytes in
                retryingEINTR {
                    sendto(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), address, length)
                }
            }
        }
        _ = try valueOrErrno("sendto(\(socketPath))", sent)
    }

    /// `READY=1`, with an optional status line.
    public func ready(status: String? = nil) throws(SystemError) {
        try send(["READY=1"] + (status.map { [Self.statusAssignment($0)] } ?? []))
    }

    /// `STATUS=…`: the one-line state shown by `systemctl status`.
    public func status(_ text: String) throws(SystemError) {
        try send([Self.statusAssignment(text)])
    }

    /// `WATCHDOG=1`: proves liveness; send at about half of ``watchdogInterval(environment:processID:)``.
    public func watchdog() throws(SystemError) {
        try send(["WATCHDOG=1"])
    }

    /// `EXTEND_TIMEOUT_USEC=…` with a status line: a long start step (a history upgrade) asks
    /// for `duration` more before systemd gives up on `READY=1`.
    public func extendTimeout(by duration: Duration, status: String) throws(SystemError) {
        let (seconds, attoseconds) = duration.components
        try send([
            "EXTEND_TIMEOUT_USEC=\(seconds * 1_000_000 + attoseconds / 1_000_000_000_000)",
            Self.statusAssignment(status),
        ])
    }

    /// `STOPPING=1`: shutdown has begun.
    public func stopping() throws(SystemError) {
        try send(["STOPPING=1"])
    }

    /// `RELOADING=1` with the `MONOTONIC_USEC` that `Type=notify-reload` requires; send
    /// `READY=1` when the reload is done.
    public func reloading() throws(SystemError) {
        try send(["RELOADING=1", "MONOTONIC_USEC=\(MonotonicClock.nanoseconds() / 1000)"])
    }

    private static func statusAssignment(_ text: String) -> String {
        // One datagram line per assignment: a newline would start a bogus assignment.
        "STATUS=" + String(text.map { $0 == "\n" ? " " : $0 })
    }

    /// The watchdog timeout systemd enforces (`WATCHDOG_USEC`), if it applies to this process.
    ///
    /// `WATCHDOG_PID`, when present, must name this process, like `LISTEN_PID`.
    public static func watchdogInterval(
        environment: [String: String] = ProcessEnvironment.current,
        processID: pid_t = getpid()
    ) -> Duration? {
        guard let text = environment["WATCHDOG_USEC"], let microseconds = Int64(text), microseconds > 0 else {
            return nil
        }
        if let pidText = environment["WATCHDOG_PID"], pid_t(pidText) != processID { return nil }
        return .microseconds(microseconds)
    }
}
