public import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A POSIX signal number with a readable name.
public struct UnixSignal: Hashable, Sendable, CustomStringConvertible {
    /// The signal number, e.g. `SIGTERM`.
    public var rawValue: Int32

    /// Wraps a signal number.
    public init(_ rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// `SIGTERM`: systemd's request to stop.
    public static let terminate = UnixSignal(SIGTERM)
    /// `SIGINT`: Ctrl-C on a terminal.
    public static let interrupt = UnixSignal(SIGINT)
    /// `SIGHUP`: conventionally "reload configuration".
    public static let hangup = UnixSignal(SIGHUP)

    /// A readable form, for logs and messages.
    public var description: String {
        switch rawValue {
        case SIGTERM: "SIGTERM"
        case SIGINT: "SIGINT"
        case SIGHUP: "SIGHUP"
        default: "signal \(rawValue)"
        }
    }
}

/// Process-wide signal dispositions.
public enum ProcessSignals {
    /// Ignores `SIGPIPE`, so writing to a closed socket or pipe fails with `EPIPE` instead
    /// of killing the process; call once at start-up.
    public static func ignoreBrokenPipe() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// Ignores `signals` from now on (and in children, which inherit an ignored disposition).
    public static func ignore(_ signals: [UnixSignal]) {
        for unixSignal in signals { signal(unixSignal.rawValue, SIG_IGN) }
    }
}

/// Delivers signals to a handler on a dispatch queue instead of an async-signal context.
///
/// There must be exactly one watcher per signal in a process: it takes the signal's
/// disposition over. The default action (usually "terminate") is replaced by "ignore"
/// before the dispatch source exists, so a signal that arrives during start-up is lost
/// rather than fatal; libdispatch then installs its own handler to route the signal to
/// the source.
public final class SignalWatcher: Sendable {
    // `DispatchSource` objects are thread-safe: `cancel()` may be called from any thread,
    // and the array itself is never mutated after `init`.
    private nonisolated(unsafe) let sources: [any DispatchSourceSignal]

    /// Starts watching `signals`; `handler` runs on `queue` once per delivery.
    public init(
        _ signals: [UnixSignal],
        queue: DispatchQueue = DispatchQueue(label: "blectl.signals"),
        handler: @escaping @Sendable (UnixSignal) -> Void
    ) {
        sources = signals.map { unixSignal in
            signal(unixSignal.rawValue, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: unixSignal.rawValue, queue: queue)
            source.setEventHandler { handler(unixSignal) }
            source.resume()
            return source
        }
    }

    /// Stops delivering; the signals stay ignored.
    public func cancel() {
        for source in sources { source.cancel() }
    }

    /// The signals as an async sequence; iterating owns the watcher, ending the iteration
    /// cancels it. At most `bufferSize` undelivered signals are kept (the newest).
    public static func stream(_ signals: [UnixSignal], bufferSize: Int = 8) -> AsyncStream<UnixSignal> {
        AsyncStream(bufferingPolicy: .bufferingNewest(bufferSize)) { continuation in
            let watcher = SignalWatcher(signals) { continuation.yield($0) }
            continuation.onTermination = { _ in watcher.cancel() }
        }
    }
}
