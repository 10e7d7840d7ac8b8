import Foundation
import Glibc
import TestSupport

/// A blocking Unix-socket client for poking the daemon with raw bytes.
/// Reads time out (SO_RCVTIMEO), so a test never hangs on a silent daemon.
final class SocketClient: @unchecked Sendable {
    // @unchecked Sendable: a test hands a client to one task at a time (a reader task
    // while it does something else); nothing uses it from two at once.
    let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects; a read waits at most `receiveTimeout` seconds (``testTimeScale`` times).
    init(path: String, receiveTimeout: Int = 5) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        let connected = withUnixAddress(path) { connect(fd, $0, $1) }
        // No close(fd) here: `self` is fully initialized, so throwing runs deinit, which
        // closes it. Closing twice closed whatever descriptor another thread had opened
        // under that number meanwhile (it crashed libdispatch's manager thread).
        guard connected == 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var timeout = timeval(tv_sec: Int(Double(receiveTimeout) * testTimeScale), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    /// Sends bytes; returns false once the daemon has closed the connection.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    /// The next line, or nil at end of stream or timeout.
    func readLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = recv(fd, &chunk, chunk.count, 0)
            guard count > 0 else { return nil }
            buffer += chunk[..<count]
        }
    }

    /// The next line parsed as a JSON object.
    func readObject() -> [String: Any]? {
        guard let line = readLine(), let data = line.data(using: .utf8) else { return nil }
        return (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }
}

/// Calls `body` with `path` as a Unix socket address and its length.
func withUnixAddress<Result>(_ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result) -> Result {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        for (index, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
    }
    return withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
}
