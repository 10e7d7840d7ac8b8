import BlectlProtocol
import Dispatch
import Glibc
import TestSupport
import UnixSupport

/// Runs blocking work on a dispatch thread, so tests that block on sockets never hold a
/// thread of Swift's small cooperative pool (the server's request tasks need it).
func offload<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async {
            continuation.resume(with: Result { try work() })
        }
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A blocking test client of the daemon socket, every read bounded by a receive timeout.
final class TestClient: @unchecked Sendable {
    // @unchecked Sendable: each test uses a client from one task at a time; the offloaded
    // closures run strictly one after another (each is awaited).
    let fd: Int32
    private var buffer: [UInt8] = []
    private var nextID = 0

    /// Connects to `path`; reads time out after `timeout` (``Duration/scaled``) so a broken
    /// test fails, not hangs.
    init(path: String, timeout: Duration = .seconds(10)) throws {
        fd = try UnixSocket.connect(path: path)
        try UnixSocket.setReceiveTimeout(fd, timeout.scaled)
    }

    deinit {
        close(fd)
    }

    /// Sends raw bytes, all of them (blocking).
    func sendRaw(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let result = bytes.withUnsafeBytes { UnixSocket.send(fd, UnsafeRawBufferPointer(rebasing: $0[offset...])) }
            guard case .transferred(let count) = result else { throw TestFailure("send failed: \(result)") }
            offset += count
        }
    }

    func send(_ text: String) throws {
        try sendRaw(Array((text + "\n").utf8))
    }

    /// The next line, or nil at end of stream or connection reset; throws on timeout.
    func readLine() throws -> String? {
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeFirst(newline + 1)
                return line
            }
            switch chunk.withUnsafeMutableBytes({ UnixSocket.receive(fd, into: $0) }) {
            case .transferred(let count): buffer += chunk[..<count]
            case .endOfFile: return nil
            case .failed(let error) where error.code == ECONNRESET: return nil
            case .failed(let error): throw TestFailure("recv: \(error)")
            case .wouldBlock: throw TestFailure("timed out waiting for a line")
            }
        }
    }

    /// Sends a request and returns the reply line with its id, skipping events.
    func request(_ command: Command) throws -> String {
        nextID += 1
        let id = nextID
        try sendRaw(JSONLines.encode(Request(id: id, command)))
        while let line = try readLine() {
            if case .reply(let replyID, _) = ServerLine.classify(Array(line.utf8)), replyID == id { return line }
        }
        throw TestFailure("connection closed before the reply to \(command.name)")
    }

    /// Sends a request and decodes its result.
    func call<R: Codable & Sendable>(_ command: Command, as type: R.Type) throws -> R {
        try JSONLines.decode(Reply<R>.self, from: Array(request(command).utf8)).get()
    }

    /// Reads lines until an event arrives.
    func nextEvent() throws -> Event {
        while let line = try readLine() {
            if case .event(let event) = ServerLine.classify(Array(line.utf8)) { return event }
        }
        throw TestFailure("connection closed while waiting for an event")
    }

    /// Reads the hello line and checks it.
    func expectHello() throws {
        guard let line = try readLine(), case .hello = ServerLine.classify(Array(line.utf8)) else {
            throw TestFailure("no hello")
        }
    }
}
