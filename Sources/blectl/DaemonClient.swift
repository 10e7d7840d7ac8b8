import BlectlProtocol
import Glibc
import UnixSupport

/// A blocking connection to blectld: one request at a time, replies matched by id.
///
/// The CLI does one thing and exits, so plain blocking reads with a receive timeout are
/// the simplest correct client.
final class DaemonClient {
    private let fd: Int32
    private let path: String
    private var buffer: [UInt8] = []
    private var nextID = 0
    /// Events that arrived while a reply was awaited, oldest first.
    private var pendingEvents: [(Event, [UInt8])] = []
    private static let maxPendingEvents = 10_000

    private init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit {
        close(fd)
    }

    /// Connects to the daemon at `path` and reads its hello.
    static func connect(path: String) throws(CLIError) -> DaemonClient {
        let fd: Int32
        do {
            fd = try UnixSocket.connect(path: path)
        } catch {
            throw .failure(explain(error, path: path))
        }
        let client = DaemonClient(fd: fd, path: path)
        try client.readHello()
        return client
    }

    private static func explain(_ error: SystemError, path: String) -> String {
        switch error.code {
        case ENOENT, ECONNREFUSED:
            return """
                blectld is not running (nothing listens on \(path)).
                Start it with:  sudo systemctl start blectld
                or try it without Bluetooth hardware:  blectld --mock
                """
        case EACCES, EPERM:
            return """
                permission denied on \(path).
                Use sudo, or join the group that owns the socket (socket_group in /etc/blectl/blectld.conf).
                """
        default:
            return "cannot connect to blectld at \(path): \(error.reason)"
        }
    }

    private func readHello() throws(CLIError) {
        try setTimeout(.seconds(5))
        let line = try nextLine()
        switch ServerLine.classify(line) {
        case .hello(let hello) where hello.v == ProtocolInfo.version:
            return
        case .hello(let hello):
            throw .failure("blectld speaks protocol version \(hello.v); this blectl speaks \(ProtocolInfo.version)")
        case .reply:
            throw .failure(Self.errorText(line))
        default:
            throw .failure("\(path) does not look like blectld's socket")
        }
    }

    /// Sends `command` and returns the result of the matching reply. Events that arrive
    /// meanwhile are kept for ``nextEvent()``. `timeout` bounds the wait (nil: none).
    func request<Result: Codable & Sendable>(
        _ command: Command, as type: Result.Type, timeout: Duration?
    ) throws(CLIError) -> Result {
        nextID += 1
        let id = nextID
        try send(Request(id: id, command))
        try setTimeout(timeout)
        while true {
            let line = try nextLine()
            switch ServerLine.classify(line) {
            case .reply(let replyID, _) where replyID == id || replyID == nil:
                guard let reply = try? JSONLines.decode(Reply<Result>.self, from: line) else {
                    throw .failure(Self.errorText(line))
                }
                do {
                    return try reply.get()
                } catch {
                    throw .failure(error.message)
                }
            case .event(let event):
                guard pendingEvents.count < Self.maxPendingEvents else {
                    throw .failure("too many events arrived while waiting for a reply")
                }
                pendingEvents.append((event, line))
            default:
                continue
            }
        }
    }

    /// The next event and its line as the daemon sent it, waiting as long as it takes.
    func nextEvent() throws(CLIError) -> (Event, [UInt8]) {
        if !pendingEvents.isEmpty { return pendingEvents.removeFirst() }
        try setTimeout(nil)
        while true {
            let line = try nextLine()
            if case .event(let event) = ServerLine.classify(line) { return (event, line) }
        }
    }

    private func send(_ request: Request) throws(CLIError) {
        guard let bytes = try? JSONLines.encode(request) else { throw .failure("could not encode the request") }
        var offset = 0
        while offset < bytes.count {
            let result = bytes.withUnsafeBytes { UnixSocket.send(fd, UnsafeRawBufferPointer(rebasing: $0[offset...])) }
            guard case .transferred(let count) = result else {
                throw .failure("the connection to blectld broke while sending")
            }
            offset += count
        }
    }

    /// The next line from the daemon, without its newline.
    func nextLine() throws(CLIError) -> [UInt8] {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = Array(buffer[..<newline])
                buffer.removeFirst(newline + 1)
                return line
            }
            let result = chunk.withUnsafeMutableBytes { UnixSocket.receive(fd, into: $0) }
            switch result {
            case .transferred(let count):
                buffer += chunk[..<count]
            case .wouldBlock:
                throw .failure("blectld did not answer in time")
            case .endOfFile, .failed:
                throw .failure(Self.connectionLost)
            }
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

    private static func errorText(_ line: [UInt8]) -> String {
        let reply = try? JSONLines.decode(Reply<Empty>.self, from: line)
        return reply?.error?.message ?? "unexpected reply from blectld"
    }
}
