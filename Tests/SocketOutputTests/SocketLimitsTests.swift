import SensorModel
import BlectlProtocol
import ReadingHub
@testable import SocketOutput
import Glibc
import TestSupport
import Testing
import UnixSupport

extension TestClient {
    /// Sends a `read` that waits up to `timeout` seconds for a device nobody has.
    func sendHopelessRead(id: Int = 1, timeout: Double = 300) throws {
        try sendRaw(JSONLines.encode(Request(id: id, .read(address: "AA:BB:CC:DD:EE:FF", timeout: timeout))))
    }
}

extension TestDaemon {
    /// `count` clients, each waiting for the answer to a 300 s `read`.
    func connectWaitingClients(_ count: Int) async throws -> [TestClient] {
        var clients: [TestClient] = []
        for _ in 0..<count { clients.append(try await connect()) }
        try await offload { [clients] in
            for client in clients {
                try client.expectHello()
                try client.sendHopelessRead()
            }
        }
        return clients
    }
}

/// Answers every request only once cancelled (or after five minutes).
final class StallingHandler: RequestHandling {
    let started = Completion()
    let finished = Completion()

    func handle(_ command: Command) async -> Response {
        started.finish()
        try? await Task.sleep(for: .seconds(300))
        finished.finish()
        return .failure(ErrorInfo(.timeout, "stalled"))
    }
}

@Suite("Socket server limits")
struct SocketLimitsTests {
    @Test("Clients that close with a request pending free their slots at once; their requests are cancelled")
    func vanishingClients() async throws {
        try await withTestDaemon(configure: { $0.maxClients = 8 }) { daemon in
            var clients = try await daemon.connectWaitingClients(8)
            #expect(await eventually { await daemon.server.currentStatistics().pendingRequests == 8 })
            clients.removeAll()  // closed
            // Slots and descriptors come back, and the hub stops waiting for the requests.
            #expect(await eventually { await daemon.server.currentStatistics().clients == 0 })
            #expect(await eventually { await daemon.server.currentStatistics().pendingRequests == 0 })
            #expect(await daemon.server.currentStatistics().cancelledRequests == 8)
            #expect(try await daemon.freshStatus().daemon == "blectld")
        }
    }

    @Test("A request still running when the server stops and is let go ends without touching a freed server")
    func requestOutlivesServer() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("blectld.sock")
        let handler = StallingHandler()
        var server: SocketServer? = SocketServer(
            configuration: SocketServer.Configuration(path: path), handler: handler,
            log: Log(level: .debug, sink: LogRecorder().sink))
        try server?.start()
        let client = try await offload { try TestClient(path: path) }
        try await offload {
            try client.expectHello()
            try client.send(#"{"v":1,"id":1,"cmd":"status"}"#)
        }
        #expect(await eventually { handler.started.isDone })
        await server?.stop()  // cancels the request
        weak let released = server
        server = nil
        #expect(await eventually { handler.finished.isDone })
        #expect(await eventually { released == nil })  // once the request has ended
    }

    @Test("A client that half-closes while its request is pending still gets the reply")
    func halfCloseWhilePending() async throws {
        try await withTestDaemon { daemon in
            let client = try await daemon.connect()
            let (reply, end) = try await offload {
                try client.expectHello()
                try client.sendHopelessRead(id: 7, timeout: 0.5)
                shutdown(client.fd, Int32(SHUT_WR))
                return (try client.readLine(), try client.readLine())
            }
            #expect(reply?.contains(#""id":7"#) == true)
            #expect(reply?.contains(#""code":"not_found""#) == true)
            #expect(end == nil)
            #expect(daemon.log.messages.contains { $0.contains("finished sending") })
            #expect(await daemon.server.currentStatistics().cancelledRequests == 0)
        }
    }

    @Test("A client that half-closes and then closes is dropped at once, its request cancelled")
    func halfCloseThenClose() async throws {
        try await withTestDaemon { daemon in
            var client: TestClient? = try await daemon.connect()
            try await offload { [client] in
                try client!.expectHello()
                try client!.sendHopelessRead()
                shutdown(client!.fd, Int32(SHUT_WR))
            }
            // The daemon saw the end of input (and keeps the request: the client may read)…
            #expect(await eventually { daemon.log.messages.contains { $0.contains("client 1 finished sending") } })
            #expect(await daemon.server.currentStatistics().clients == 1)
            client = nil
            // …and then the hang-up.
            #expect(await eventually { await daemon.server.currentStatistics().clients == 0 })
            #expect(await eventually { await daemon.server.currentStatistics().pendingRequests == 0 })
            #expect(await daemon.server.currentStatistics().cancelledRequests == 1)
        }
    }

    @Test("One user gets max_clients_per_user clients; the next is refused with too_many_clients")
    func clientsPerUser() async throws {
        try await withTestDaemon(configure: { $0.maxClientsPerUser = 3 }) { daemon in
            var clients: [TestClient] = []
            for _ in 0..<3 { clients.append(try await daemon.connect()) }
            try await offload { [clients] in for client in clients { try client.expectHello() } }
            let refused = try await daemon.connect()
            let (line, end) = try await offload { (try refused.readLine(), try refused.readLine()) }
            #expect(line?.contains(#""code":"too_many_clients""#) == true)
            #expect(line?.contains("uid \(getuid()) has 3 clients") == true)
            #expect(end == nil)
            #expect(await daemon.server.currentStatistics().refusedForUser == 1)
            clients.removeLast()
            #expect(await eventually { await daemon.server.currentStatistics().clients == 2 })
            let again = try await daemon.connect()
            try await offload { try again.expectHello() }
            let warnings = daemon.log.messages.filter { $0.contains("max_clients_per_user") }
            #expect(warnings.count == 1)
        }
    }

    @Test("One user gets max_pending_requests_per_user requests answered at once; the next gets too_many_requests")
    func pendingRequestsPerUser() async throws {
        try await withTestDaemon(configure: { $0.maxPendingRequestsPerUser = 2 }) { daemon in
            var waiting = try await daemon.connectWaitingClients(2)
            #expect(await eventually { await daemon.server.currentStatistics().pendingRequests == 2 })
            let third = try await daemon.connect()
            let refused = try await offload {
                try third.expectHello()
                try third.sendHopelessRead(id: 3, timeout: 0.1)
                return try third.readLine()
            }
            #expect(refused?.contains(#""id":3"#) == true)
            #expect(refused?.contains(#""code":"too_many_requests""#) == true)
            #expect(await daemon.server.currentStatistics().refusedRequests == 1)
            // The connection stays open; a slot comes back when a waiting client leaves.
            waiting.removeLast()
            #expect(await eventually { await daemon.server.currentStatistics().pendingRequests == 1 })
            let answered = try await offload {
                try third.sendHopelessRead(id: 4, timeout: 0.1)
                return try third.readLine()
            }
            #expect(answered?.contains(#""id":4"#) == true)
            #expect(answered?.contains(#""code":"not_found""#) == true)
        }
    }

    @Test("Past max_queued_bytes_total the client with the most queued is dropped, never a reader")
    func totalQueueBound() async throws {
        let pi: BluetoothAddress = "DC:A6:32:01:02:03"
        try await withTestDaemon(configure: { $0.maxQueuedBytesTotal = 128 << 10 }) { daemon in
            let first = try await daemon.subscriber()
            let reader = try await daemon.subscriber()
            var second: TestClient?
            var received: [UInt64] = []
            // The first stuck client gets a head start: its queue stays the longer.
            for batch in 0..<40 {
                if batch == 5 { second = try await daemon.subscriber() }
                for index in 0..<100 { await daemon.hub.apply(.fahrenheit(pi, Double(batch * 100 + index) / 10)) }
                received += try await offload { try (0..<100).map { _ in try reader.nextEvent().seq ?? 0 } }
            }
            #expect(received == Array(1...4000))
            let statistics = await daemon.server.currentStatistics()
            #expect(statistics.droppedOverTotal == 2)
            #expect(statistics.clients == 1)
            let drops = daemon.log.messages.filter { $0.contains("max_queued_bytes_total") }
            #expect(drops.first?.hasPrefix("client 1 ") == true)
            #expect(drops.last?.hasPrefix("client 3 ") == true)
            withExtendedLifetime((first, second)) {}
        }
    }
}
