import BlectlProtocol
import Glibc
import UnixSupport

/// Writes `watch`'s events to stdout once each, as the daemon's JSON lines or as text
/// columns, in large writes.
///
/// A burst brings thousands of events a second: a JSON line is copied through as it
/// came, only its `type` and `seq` looked at, and output waits in a buffer until the
/// socket has nothing more to read (``flush()``), so a burst costs few system calls and
/// a quiet stream is printed at once.
struct EventSink {
    let terminal: Terminal
    let formatter: EventFormatter
    /// The highest `seq` written (or known when watching began); older readings are skipped.
    var lastSeq: UInt64 = 0
    private var output = StdoutBuffer()

    init(terminal: Terminal) {
        self.terminal = terminal
        formatter = EventFormatter(terminal: terminal)
    }

    /// Takes one event object, `bytes[range]`; anything else (a late reply) is ignored.
    /// `types`, when given, also filters (history replays every kind it keeps).
    mutating func take(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, types: Set<EventType>? = nil) {
        let scanner = JSONScanner(bytes)
        var type: Range<Int>?
        var seq: UInt64?
        var isReply = false
        _ = scanner.members(of: range) { key, value in
            if scanner.equals(key, "type") {
                type = value
            } else if scanner.equals(key, "seq") {
                seq = scanner.unsignedInteger(value)
            } else if scanner.equals(key, "ok") {
                isReply = true
            }
            return true
        }
        guard let type, !isReply else { return }
        if let types {
            let name = String(decoding: bytes[type.dropFirst().dropLast()], as: UTF8.self)
            guard let known = EventType(rawValue: name), types.contains(known) else { return }
        }
        if let seq {
            guard seq > lastSeq else { return }
            lastSeq = seq
        }
        if terminal.json {
            output.append(bytes: UnsafeBufferPointer(rebasing: bytes[range]))
            output.append("\n")
        } else {
            output.append(line: formatter.line(for: bytes[range]))
        }
    }

    /// Writes what is buffered.
    mutating func flush() {
        output.flush()
    }

    /// A notice on stderr, after what stdout has so far.
    mutating func notice(_ text: String) {
        output.notice(text)
    }
}

/// Output for stdout gathered into large writes: flushed when it passes 256 KiB, and when
/// the caller has nothing more at hand (``flush()``).
struct StdoutBuffer {
    private var bytes: [UInt8] = []
    private static let flushSize = 256 * 1024

    init() {
        bytes.reserveCapacity(Self.flushSize + 4096)
    }

    mutating func append(bytes more: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: more)
        if bytes.count >= Self.flushSize { flush() }
    }

    mutating func append(_ text: String) {
        bytes.append(contentsOf: text.utf8)
        if bytes.count >= Self.flushSize { flush() }
    }

    /// `text` and a newline.
    mutating func append(line text: String) {
        bytes.append(contentsOf: text.utf8)
        append("\n")
    }

    /// Writes what is buffered.
    mutating func flush() {
        guard !bytes.isEmpty else { return }
        writeAll(STDOUT_FILENO, bytes)
        bytes.removeAll(keepingCapacity: true)
    }

    /// A notice on stderr, after what stdout has so far.
    mutating func notice(_ text: String) {
        flush()
        writeAll(STDERR_FILENO, Array("blectl: \(text)\n".utf8))
    }
}
