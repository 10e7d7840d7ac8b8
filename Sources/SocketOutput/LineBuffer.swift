/// Accumulates bytes from a socket and hands out complete lines, bounded in length.
///
/// Lines end with `\n`; a trailing `\r` is dropped. A line (or an unfinished tail) longer
/// than `maxLineLength` is reported once as too long, and the buffer is then useless:
/// the connection is closed.
struct LineBuffer {
    enum Next: Equatable {
        /// A complete line, without its terminator.
        case line([UInt8])
        /// No complete line yet.
        case incomplete
        /// A line exceeded the maximum length.
        case tooLong
    }

    let maxLineLength: Int
    private var bytes: [UInt8] = []
    private var start = 0
    /// Where the search for the next newline resumes: earlier bytes hold none.
    private var scanned = 0

    init(maxLineLength: Int) {
        self.maxLineLength = maxLineLength
    }

    /// Bytes received and not yet handed out.
    var bufferedCount: Int { bytes.count - start }

    mutating func append(_ chunk: UnsafeRawBufferPointer) {
        if start > 0 && start >= bytes.count / 2 {
            bytes.removeFirst(start)
            scanned -= start
            start = 0
        }
        bytes.append(contentsOf: chunk)
    }

    /// Ends the input: an unterminated last line counts as a line.
    mutating func finish() {
        if bufferedCount > 0 && bytes.last != UInt8(ascii: "\n") {
            bytes.append(UInt8(ascii: "\n"))
        }
    }

    mutating func next() -> Next {
        let newline = bytes[max(scanned, start)...].firstIndex(of: UInt8(ascii: "\n"))
        guard let newline else {
            scanned = bytes.count
            return bufferedCount > maxLineLength ? .tooLong : .incomplete
        }
        var end = newline
        if end > start && bytes[end - 1] == UInt8(ascii: "\r") { end -= 1 }
        let line = Array(bytes[start..<end])
        start = newline + 1
        scanned = start
        if start == bytes.count { empty() }
        return line.count > maxLineLength ? .tooLong : .line(line)
    }

    /// Forgets the consumed bytes, keeping the storage unless a long line grew it: an idle
    /// client should not hold on to its longest line's worth of memory.
    private mutating func empty() {
        bytes.removeAll(keepingCapacity: bytes.capacity <= Self.keptCapacity)
        start = 0
        scanned = 0
    }

    private static let keptCapacity = 4096

    /// Drops everything buffered, and the storage.
    mutating func reset() {
        bytes = []
        start = 0
        scanned = 0
    }
}

/// Bytes waiting to be written to one client, counted so the bound can be enforced.
///
/// One contiguous buffer, so that everything queued goes out in one `send`: a burst of
/// events costs one system call per client, not one per line.
struct OutputQueue {
    private var bytes: [UInt8] = []
    /// How much of `bytes` was already written.
    private var start = 0

    /// Bytes queued and not yet written.
    var byteCount: Int { bytes.count - start }
    var isEmpty: Bool { byteCount == 0 }

    mutating func append(_ chunk: [UInt8]) {
        bytes.append(contentsOf: chunk)
    }

    /// Calls `body` with every unwritten byte; `body` returns how many bytes it wrote,
    /// which are then dropped from the queue.
    mutating func writeFront(_ body: (UnsafeRawBufferPointer) -> Int) {
        guard !isEmpty else { return }
        let written = bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[start...])) }
        start += written
        if start == bytes.count {
            bytes.removeAll(keepingCapacity: bytes.capacity <= 64 * 1024)
            start = 0
        } else if start >= 64 * 1024 {
            bytes.removeFirst(start)
            start = 0
        }
    }
}
