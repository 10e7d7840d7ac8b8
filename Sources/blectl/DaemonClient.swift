import BlectlProtocol
import Glibc
import UnixSupport

/// A blocking connection to blectld: one request at a time, replies matched by id.
///
/// The CLI does one thing and exits, so plain blocking reads with a receive timeout are
/// the simplest correct client. Lines stay bytes until a command needs their fields: the
/// daemon's objects can be printed as they came, and an event stream is followed without
/// decoding it.
final class DaemonClient {
    /// The connected socket.
    let fd: Int32
    private let path: String
    private var input = SocketLines()
    private var nextID = 0
    /// Event lines that arrived while a reply was awaited, oldest first.
    private var pendingEvents: [[UInt8]] = []
    private static let maxPendingEvents = 10_000

    private init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit {
        close(fd)
    }

    /// Connects to the daemon at `path` and reads its hello; `hint` explains a failure.
    static func connect(path: String, hint: ConnectionHint) throws(CLIError) -> DaemonClient {
        let fd: Int32
        do {
            fd = try UnixSocket.connect(path: path)
        } catch {
            throw hint.explain(error)
        }
        let client = DaemonClient(fd: fd, path: path)
        try client.readHello()
        return client
    }

    private func readHello() throws(CLIError) {
        try setTimeout(.seconds(5))
        let line = try nextLine()
        if let hello = try? JSONLines.decode(Hello.self, from: line), hello.type == "hello" {
            guard hello.v == ProtocolInfo.version else {
                throw .failure(
                    "blectld speaks protocol version \(hello.v); this blectl speaks \(ProtocolInfo.version)",
                    .protocolMismatch)
            }
            return
        }
        if let reply = ReplyLine(line), !reply.ok { throw reply.failure() }  // e.g. too_many_clients
        throw .failure("\(path) does not look like blectld's socket", .protocolMismatch)
    }

    /// Sends `command` and returns its reply, or throws the daemon's error. Events that
    /// arrive meanwhile are kept for ``streamEvents(_:beforeWaiting:)``. `timeout` bounds
    /// the wait (nil: none).
    func request(_ command: Command, timeout: Duration?) throws(CLIError) -> ReplyLine {
        nextID += 1
        let id = nextID
        try send(Request(id: id, command))
        try setTimeout(timeout)
        while true {
            let line = try nextLine()
            if let reply = ReplyLine(line) {
                guard reply.id == id || reply.id == nil else { continue }
                guard reply.ok else { throw reply.failure() }
                return reply
            }
            guard pendingEvents.count < Self.maxPendingEvents else {
                throw .failure("too many events arrived while waiting for a reply")
            }
            pendingEvents.append(line)
        }
    }

    /// Sends `command` and decodes its result as `Result`.
    func request<Result: Decodable>(_ command: Command, as type: Result.Type, timeout: Duration?) throws(CLIError)
        -> Result
    {
        try request(command, timeout: timeout).decode(type)
    }

    /// Hands every line after the replies to `body`, in place (the buffer and the line's
    /// range in it), until the connection ends; `beforeWaiting` runs each time no
    /// complete line is left, before blocking for more.
    func streamEvents(
        _ body: (UnsafeBufferPointer<UInt8>, Range<Int>) -> Void, beforeWaiting: () -> Void
    ) throws(CLIError) -> Never {
        for line in pendingEvents {
            line.withUnsafeBufferPointer { body($0, 0..<line.count) }
        }
        pendingEvents.removeAll()
        try setTimeout(nil)
        while true {
            while let line = input.nextLine() {
                input.bytes.withUnsafeBufferPointer { body($0, line) }
            }
            beforeWaiting()
            try receive()
        }
    }

    private func send(_ request: Request) throws(CLIError) {
        guard let bytes = try? JSONLines.encode(request) else { throw .failure("could not encode the request") }
        var offset = 0
        while offset < bytes.count {
            let result = bytes.withUnsafeBytes { UnixSocket.send(fd, UnsafeRawBufferPointer(rebasing: $0[offset...])) }
            guard case .transferred(let count) = result else {
                throw .failure("the connection to blectld broke while sending", .daemonUnreachable)
            }
            offset += count
        }
    }

    /// The next line from the daemon, without its newline.
    private func nextLine() throws(CLIError) -> [UInt8] {
        while true {
            if let line = input.nextLine() { return Array(input.bytes[line]) }
            try receive()
        }
    }

    private func receive() throws(CLIError) {
        switch input.receive(from: fd) {
        case .transferred:
            return
        case .wouldBlock:
            throw .failure("blectld did not answer in time", .daemonUnreachable)
        case .endOfFile:
            throw .failure(Self.connectionLost, .daemonUnreachable)
        case .failed(let error):
            throw .failure("\(Self.connectionLost): \(error)", .daemonUnreachable)
        }
    }

    private func setTimeout(_ timeout: Duration?) throws(CLIError) {
        do {
            try UnixSocket.setReceiveTimeout(fd, timeout ?? .zero)  // zero: no timeout
        } catch {
            throw .failure("\(error)")
        }
    }

    /// The message for a connection the daemon closed.
    static let connectionLost = "blectld closed the connection"
}

/// A reply line as bytes, with where its `result` is.
struct ReplyLine {
    /// The whole line.
    var bytes: [UInt8]
    /// The request id it answers (nil for refusals such as `too_many_clients`).
    var id: Int?
    /// Whether the command succeeded.
    var ok: Bool
    /// The `result` (success) or `error` (failure) value.
    var payload: Range<Int>

    /// Reads a line as a reply; nil when it is not one (an event, a hello).
    init?(_ line: [UInt8]) {
        var id: Int?
        var ok: Bool?
        var payload: Range<Int>?
        let wellFormed = line.withUnsafeBufferPointer { buffer in
            let scanner = JSONScanner(buffer)
            return scanner.members(of: 0..<buffer.count) { key, value in
                if scanner.equals(key, "id") {
                    id = scanner.unsignedInteger(value).flatMap { Int(exactly: $0) }
                } else if scanner.equals(key, "ok") {
                    ok = scanner.equals(value, "true")
                } else if scanner.equals(key, "result") || scanner.equals(key, "error") {
                    payload = value
                }
                return true
            }
        }
        guard wellFormed, let ok else { return nil }
        self.bytes = line
        self.id = id
        self.ok = ok
        self.payload = payload ?? 0..<0
    }

    /// The result's bytes as the daemon sent them.
    var result: ArraySlice<UInt8> { bytes[payload] }

    /// The result decoded as `type`.
    func decode<Result: Decodable>(_ type: Result.Type) throws(CLIError) -> Result {
        do {
            return try JSONLines.decode(type, from: result)
        } catch {
            throw .failure("unexpected reply from blectld: \(error)", .protocolMismatch)
        }
    }

    /// The daemon's error, with the exit status its code maps to.
    func failure() -> CLIError {
        guard let error = try? JSONLines.decode(ErrorInfo.self, from: bytes[payload]) else {
            return .failure("unexpected reply from blectld", .protocolMismatch)
        }
        return .failure(error.message, ExitStatus.forError(error.code))
    }
}
