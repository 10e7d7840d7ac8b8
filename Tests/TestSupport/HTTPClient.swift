import Foundation
import Glibc

/// Runs blocking work (sockets, processes) on a thread of its own.
///
/// Not on a dispatch queue: on Linux, Swift's global executor runs tasks on libdispatch's
/// global threads, so work blocked there (a test waiting for a response) would starve the
/// very tasks that make the response.
public func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try work() }) }
    }
}

/// A response as a test reads it.
public struct TestResponse: Sendable {
    /// The status code.
    public var status: Int
    /// Headers by lower-case name.
    public var headers: [String: String]
    /// The body.
    public var body: [UInt8]

    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// A blocking TCP connection to 127.0.0.1 with a receive timeout, for raw HTTP.
public final class TCPConnection: @unchecked Sendable {
    // @unchecked Sendable: used from one offloaded closure at a time.
    /// The socket.
    public let fd: Int32

    /// Connects to 127.0.0.1:`port`; reads, writes and the connect time out after `timeout`
    /// seconds times ``testTimeScale``.
    public init(port: UInt16, timeout unscaled: Double = 30) throws {
        let timeout = unscaled * testTimeScale
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw TestSupportError("socket: errno \(errno)") }
        var time = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - Double(Int(timeout))) * 1e6))
        // The receive timeout bounds reads, the send timeout writes and connect.
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw TestSupportError("connect to port \(port): errno \(code)")
        }
    }

    deinit { close(fd) }

    /// Sends everything; false when the peer closed.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent <= 0 { return false }
            offset += sent
        }
        return true
    }

    /// Reads until the peer closes (or the timeout); returns what came.
    public func readToEnd() -> [UInt8] {
        var result: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { return result }
            result += chunk[..<count]
        }
    }

    /// Whether the peer closed the connection within the receive timeout (reading and
    /// dropping whatever it sent first).
    public func closedByPeer() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 || (count < 0 && errno == ECONNRESET) { return true }
            if count < 0 { return false }
        }
    }
}

/// One request on a connection of its own (`Connection: close`), read to the end.
public func request(
    _ port: UInt16, _ path: String, method: String = "GET", headers: String = "", body: String = ""
) async throws -> TestResponse {
    try await onOwnThread {
        let connection = try TCPConnection(port: port)
        connection.send(
            Array("\(method) \(path) HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\(headers)\r\n\(body)".utf8))
        return try parse(connection.readToEnd())
    }
}

/// Parses a whole HTTP/1.1 response (with a Content-Length body).
public func parse(_ bytes: [UInt8]) throws -> TestResponse {
    let separator = Array("\r\n\r\n".utf8)
    guard let end = bytes.indices.first(where: { bytes[$0...].starts(with: separator) }) else {
        throw TestSupportError("no complete response: \(String(decoding: bytes, as: UTF8.self))")
    }
    let head = String(decoding: bytes[..<end], as: UTF8.self).split(separator: "\r\n")
    let statusLine = head.first?.split(separator: " ") ?? []
    guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
        throw TestSupportError("bad status line: \(head.first ?? "")")
    }
    var headers: [String: String] = [:]
    for line in head.dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingPrefix(" ").description
    }
    return TestResponse(status: status, headers: headers, body: Array(bytes[(end + 4)...]))
}

/// Many connections opened at once without waiting (non-blocking connects), each sending
/// `request` as soon as it can, held open until ``close()``.
public final class ConnectionFlood: @unchecked Sendable {
    // @unchecked Sendable: made and closed by one task.
    private var descriptors: [Int32] = []

    /// How many sockets connected or were connecting.
    public var opened: Int { descriptors.count }

    /// Opens `count` connections to 127.0.0.1:`port`, raising the descriptor limit if it must.
    public init(port: UInt16, count: Int, request: String) throws {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = max(limit.rlim_cur, min(limit.rlim_max, rlim_t(count + 1024)))
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        for _ in 0..<count {
            let fd = socket(
                AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw TestSupportError("socket: errno \(errno) after \(descriptors.count)") }
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard result == 0 || errno == EINPROGRESS else {
                Glibc.close(fd)
                throw TestSupportError("connect: errno \(errno) after \(descriptors.count)")
            }
            descriptors.append(fd)
        }
        // Those whose connection completed get the request now; the rest stay half-open.
        let bytes = Array(request.utf8)
        for fd in descriptors {
            _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
    }

    /// How many connections have something to read (a response, or their end) after
    /// waiting up to `seconds` for the last of them.
    public func answered(within seconds: Double) -> Int {
        var polls = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        let end = Date().addingTimeInterval(seconds)
        var answered = Set<Int32>()
        while answered.count < polls.count, Date() < end {
            _ = poll(&polls, nfds_t(polls.count), 100)
            for entry in polls where entry.revents != 0 { answered.insert(entry.fd) }
        }
        return answered.count
    }

    /// Closes them all.
    public func close() {
        for fd in descriptors { Glibc.close(fd) }
        descriptors = []
    }

    deinit { close() }
}
