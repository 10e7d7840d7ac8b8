import ConcurrencySupport
public import UnixSupport

/// An in-memory log sink, for tests that assert on what was logged.
public final class LogRecorder: Sendable {
    /// One recorded line.
    public struct Record: Equatable, Sendable {
        /// The record's level.
        public var level: LogLevel
        /// The line's text.
        public var message: String

        /// Creates a record.
        public init(level: LogLevel, message: String) {
            self.level = level
            self.message = message
        }
    }

    private let storage = Locked<[Record]>([])

    /// Creates an empty recorder.
    public init() {}

    /// A sink that appends to this recorder; pass it to ``Log/init(level:sink:)``.
    public var sink: Log.Sink {
        { [self] level, message in storage.withLock { $0.append(Record(level: level, message: message)) } }
    }

    /// Everything recorded so far, oldest first.
    public var records: [Record] {
        storage.withLock { $0 }
    }

    /// The recorded messages, oldest first.
    public var messages: [String] {
        records.map(\.message)
    }
}
