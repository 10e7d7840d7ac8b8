import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A log threshold shared by copies of a ``Log``, changeable at run time.
final class LogThreshold: Sendable {
    private let value: Atomic<Int>

    init(_ level: LogLevel) { value = Atomic(level.rawValue) }

    var level: LogLevel { LogLevel(rawValue: value.load(ordering: .relaxed)) ?? .info }

    func set(_ level: LogLevel) { value.store(level.rawValue, ordering: .relaxed) }
}

/// A leveled logger for a new-style daemon: one line per record, filtered by level.
///
/// Multi-line messages become several records so that every line carries its own
/// priority prefix, which is what journald expects from a service's stderr.
public struct Log: Sendable {
    /// Receives one line of text (no newline) at a level; must be safe to call from any thread.
    public typealias Sink = @Sendable (LogLevel, String) -> Void

    /// The least severe level that is written; records below it are dropped unevaluated.
    public var level: LogLevel { threshold.level }
    private let threshold: LogThreshold
    private let sink: Sink

    /// Creates a logger writing records at `level` or more severe to `sink`.
    public init(level: LogLevel = .info, sink: @escaping Sink = StandardErrorSink.automatic().write) {
        self.threshold = LogThreshold(level)
        self.sink = sink
    }

    /// Changes the threshold of this logger and of every copy of it (SIGHUP reload).
    public func setLevel(_ level: LogLevel) {
        threshold.set(level)
    }

    /// Writes `message` at `level` if the threshold allows it.
    public func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        guard level >= self.level else { return }
        for line in message().split(separator: "\n", omittingEmptySubsequences: false) {
            sink(level, String(line))
        }
    }

    /// Writes at `err`.
    public func error(_ message: @autoclosure () -> String) { log(.error, message()) }
    /// Writes at `warning`.
    public func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    /// Writes at `notice`.
    public func notice(_ message: @autoclosure () -> String) { log(.notice, message()) }
    /// Writes at `info`.
    public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    /// Writes at `debug`.
    public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
}

/// Writes log lines to stderr with `write(2)`, one call per line, optionally `<N>`-prefixed.
///
/// One `write` per line keeps lines from concurrent threads whole, and bypasses stdio
/// buffering, which would hold lines back when stderr is a pipe to journald.
public struct StandardErrorSink: Sendable {
    /// Whether lines start with sd-daemon's `<N>` priority prefix.
    public var prefixed: Bool

    /// Creates a sink; `prefixed` selects `<N>message` over `level: message`.
    public init(prefixed: Bool) {
        self.prefixed = prefixed
    }

    /// Prefixes unless stderr is a terminal, where a person reads `level: message` more easily.
    public static func automatic() -> StandardErrorSink {
        StandardErrorSink(prefixed: isatty(STDERR_FILENO) == 0)
    }

    /// Formats a line as this sink writes it, without the newline.
    public func format(_ level: LogLevel, _ line: String) -> String {
        prefixed ? "<\(level.rawValue)>\(line)" : "\(level.name): \(line)"
    }

    /// Writes one formatted line to stderr.
    public func write(_ level: LogLevel, _ line: String) {
        writeAll(STDERR_FILENO, Array((format(level, line) + "\n").utf8))
    }
}

/// Writes every byte of `bytes` to `fd`, retrying partial writes and `EINTR`; gives up on errors.
///
/// Used for stderr and stdout, where there is nobody to report a failure to.
public func writeAll(_ fd: Int32, _ bytes: [UInt8]) {
    bytes.withUnsafeBytes { buffer in
        var offset = 0
        while offset < buffer.count {
            let written = retryingEINTR {
                write(fd, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written <= 0 { return }
            offset += written
        }
    }
}
