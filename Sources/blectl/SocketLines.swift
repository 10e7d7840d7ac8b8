import Glibc
import UnixSupport

/// Lines from a socket, read in large chunks and handed out in place (no copy per line).
struct SocketLines {
    /// Received bytes; `start..<end` is what is not handed out yet.
    private(set) var bytes = [UInt8](repeating: 0, count: Self.chunk)
    private var start = 0
    private var end = 0

    /// How much one `recv` asks for: a burst of events arrives in few system calls.
    private static let chunk = 256 * 1024
    /// The longest line accepted; the daemon's largest reply (a full peripheral table or
    /// history page) is far below it.
    static let maxLine = 16 * 1024 * 1024

    /// The next complete line in the buffer (without its newline), or nil when a read is needed.
    mutating func nextLine() -> Range<Int>? {
        guard start < end else { return nil }
        let newline = bytes.withUnsafeBufferPointer { buffer -> Int? in
            guard let found = memchr(buffer.baseAddress! + start, 0x0A, end - start) else { return nil }
            return buffer.baseAddress!.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
        guard let newline else { return nil }
        let line = start..<newline
        start = newline + 1
        return line
    }

    /// Reads what the socket has (blocking up to its receive timeout) after the bytes not
    /// yet handed out; the ranges handed out before become invalid.
    mutating func receive(from fd: Int32) -> IOResult {
        if start == end {
            (start, end) = (0, 0)
        } else if end == bytes.count {
            makeRoom()
        }
        guard end < bytes.count else { return .failed(SystemError("reading a line from blectld", code: EMSGSIZE)) }
        let result = bytes.withUnsafeMutableBytes { buffer in
            UnixSocket.receive(fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[end...]))
        }
        if case .transferred(let count) = result { end += count }
        return result
    }

    /// Moves the partial line to the front, or grows the buffer when it fills it.
    private mutating func makeRoom() {
        if start > 0 {
            bytes.withUnsafeMutableBufferPointer { buffer in
                _ = memmove(buffer.baseAddress!, buffer.baseAddress! + start, end - start)
            }
            (start, end) = (0, end - start)
        } else if bytes.count < Self.maxLine {
            bytes += [UInt8](repeating: 0, count: bytes.count)
        }
    }
}
