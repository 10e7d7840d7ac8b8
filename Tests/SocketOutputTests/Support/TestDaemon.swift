import TestSupport
import BlectlProtocol
import SensorModel
import HistoryStore
import ReadingHub
@testable import SocketOutput
import UnixSupport

/// A hub and a socket server on a socket in a temporary directory.
struct TestDaemon: Sendable {
    let hub: Hub
    let server: SocketServer
    let history: HistoryStore
    let socketPath: String
    let log: LogRecorder

    func connect(timeout: Duration = .seconds(10)) async throws -> TestClient {
        let path = socketPath
        return try await offload { try TestClient(path: path, timeout: timeout) }
    }

    /// A new client subscribed to `events`.
    func subscriber(to events: Set<EventType>? = [.reading]) async throws -> TestClient {
        let client = try await connect()
        try await offload {
            try client.expectHello()
            _ = try client.call(.subscribe(events: events), as: SubscribeResult.self)
        }
        return client
    }

    /// `status` asked on a new connection: the daemon is alive and serving.
    func freshStatus() async throws -> StatusResult {
        let client = try await connect()
        return try await offload {
            try client.expectHello()
            return try client.call(.status, as: StatusResult.self)
        }
    }
}

/// Runs `body` with a started daemon and always stops it (and removes its directory),
/// whether `body` returns or throws.
///
/// The hub, a history store in the directory and the socket server are wired as blectld
/// wires them. `activated`: serve a listening socket made by the test (as systemd passes
/// one) instead of one of the server's own.
func withTestDaemon<T: Sendable>(
    limits: Hub.Limits = Hub.Limits(),
    central: (any CentralControl)? = nil,
    activated: (path: String, fd: Int32)? = nil,
    configure: (inout SocketServer.Configuration) -> Void = { _ in },
    _ body: (TestDaemon) async throws -> T
) async throws -> T {
    let directory = TemporaryDirectory()
    defer { directory.remove() }
    var configuration = SocketServer.Configuration(path: activated?.path ?? directory.file("blectld.sock"))
    configure(&configuration)
    let recorder = LogRecorder()
    let log = Log(level: .debug, sink: recorder.sink)
    let history = try HistoryStore.open(path: directory.path, log: log)
    let hub = Hub(limits: limits, central: central, lastSeq: history.lastSeq)
    let server = SocketServer(configuration: configuration, handler: RequestDispatcher(hub: hub), log: log)
    await hub.attach(history: history)
    let registration = await hub.addListener { server.broadcast($0) }
    server.noteSequence(registration.lastSeq)
    try server.start(inheriting: activated?.fd)
    let daemon = TestDaemon(hub: hub, server: server, history: history, socketPath: configuration.path, log: recorder)
    do {
        let result = try await body(daemon)
        await server.stop()
        await history.close()
        return result
    } catch {
        await server.stop()
        await history.close()
        throw error
    }
}
