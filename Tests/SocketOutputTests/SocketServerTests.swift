import SensorModel
import BlectlProtocol
import ReadingHub
@testable import SocketOutput
import Glibc
import TestSupport
import Testing
import UnixSupport

@Suite("Socket server")
struct SocketServerTests {
    let pi: BluetoothAddress = "DC:A6:32:01:02:03"

    @Test("A client gets hello, then answers to its requests")
    func helloAndStatus() async throws {
        try await withTestDaemon { daemon in
            await daemon.hub.apply(.adapterState(adapter: "hci0", state: .poweredOn))
            let client = try await daemon.connect()
            let status = try await offload {
                try client.expectHello()
                return try client.call(.status, as: StatusResult.self)
            }
            #expect(status.daemon == "blectld" && status.adapter == "hci0" && status.state == .poweredOn)
        }
    }

    @Test("The socket file is mode 0660 and removed on stop")
    func socketFile() async throws {
        let path = try await withTestDaemon { daemon in
            var info = stat()
            #expect(stat(daemon.socketPath, &info) == 0)
            #expect(info.st_mode & 0o777 == 0o660)
            return daemon.socketPath
        }
        #expect(access(path, F_OK) != 0)
    }

    @Test("Garbage gets an error reply and the connection survives")
    func garbage() async throws {
        try await withTestDaemon { daemon in
            let client = try await daemon.connect()
            let (first, second, status) = try await offload {
                try client.expectHello()
                try client.send("this is not json")
                let first = try client.readLine()
                try client.sendRaw([0xff, 0xfe, 0x00, 0x0a])  // binary junk with a newline
                let second = try client.readLine()
                return (first, second, try client.call(.status, as: StatusResult.self))
            }
            #expect(first?.contains(#""code":"parse_error""#) == true)
            #expect(first?.contains(#""id":null"#) == true)
            #expect(second?.contains(#""code":"parse_error""#) == true)
            #expect(status.daemon == "blectld")
            #expect(await daemon.server.currentStatistics().badRequests == 2)
        }
    }

    @Test("A 10 MB line gets line_too_long and the connection is closed; the daemon lives on")
    func hugeLine() async throws {
        try await withTestDaemon { daemon in
            let client = try await daemon.connect()
            try await offload { try client.expectHello() }
            // The writer blocks once buffers fill; closing the connection releases it (EPIPE).
            let writer = Task.detached {
                try? await offload { try? client.sendRaw([UInt8](repeating: UInt8(ascii: "x"), count: 10 << 20)) }
            }
            let (error, end) = try await offload { (try client.readLine(), try client.readLine()) }
            await writer.value
            #expect(error?.contains(#""code":"line_too_long""#) == true)
            #expect(end == nil)
            #expect(await daemon.server.currentStatistics().closedForLongLines == 1)
            #expect(try await daemon.freshStatus().daemon == "blectld")
        }
    }

    @Test(
        "500 clients: the first 64 are served, the rest refused, and the daemon keeps serving",
        .enabled(if: heavyTestsRun, "many descriptors: make test runs it alone"))
    func manyClients() async throws {
        try await withTestDaemon(configure: { $0.maxClientsPerUser = 64 }) { daemon in
            let path = daemon.socketPath
            let (served, refused) = try await offload {
                var clients: [TestClient] = []
                var served = 0
                var refused = 0
                for _ in 0..<500 {
                    let client = try TestClient(path: path)
                    clients.append(client)
                    let line = try client.readLine() ?? ""
                    if line.contains(#""type":"hello""#) { served += 1 }
                    if line.contains(#""code":"too_many_clients""#) {
                        refused += 1
                        #expect(try client.readLine() == nil)  // then closed
                    }
                }
                return (served, refused)  // every client closes here
            }
            #expect(served == 64)
            #expect(refused == 436)
            let statistics = await daemon.server.currentStatistics()
            #expect(statistics.refused == 436)
            #expect(try await daemon.freshStatus().daemon == "blectld")
        }
    }

    @Test("A client that never reads is dropped while another keeps receiving every event")
    func slowClient() async throws {
        try await withTestDaemon(configure: { $0.maxQueuedBytes = 64 << 10 }) { daemon in
            let stuck = try await daemon.subscriber()
            let reader = try await daemon.subscriber()
            // Batches small enough for the reader's queue; together far more than the
            // stuck client's queue and socket buffer can hold.
            var received: [UInt64] = []
            for batch in 0..<40 {
                for index in 0..<100 {
                    await daemon.hub.apply(.fahrenheit(pi, Double(batch * 100 + index) / 10))
                }
                let seqs = try await offload {
                    try (0..<100).map { _ in try reader.nextEvent().seq ?? 0 }
                }
                received += seqs
            }
            #expect(received == Array(1...4000))
            #expect(await daemon.server.currentStatistics().droppedSlow == 1)
            #expect(await daemon.server.currentStatistics().clients == 1)
            withExtendedLifetime(stuck) {}  // dropped by the daemon, not closed by the test
        }
    }

    @Test("Writing to clients that went away raises no SIGPIPE")
    func brokenPipes() async throws {
        try await withTestDaemon { daemon in
            for _ in 0..<5 {
                let client = try await daemon.connect()
                try await offload {
                    try client.expectHello()
                    _ = try client.call(.subscribe(events: nil), as: SubscribeResult.self)
                    // Ask something and hang up before the answer.
                    try client.sendRaw(try JSONLines.encode(Request(id: 99, .read(address: nil, timeout: 0.2))))
                }
            }  // each client is closed when it goes out of scope
            for index in 0..<200 { await daemon.hub.apply(.fahrenheit(pi, Double(index))) }
            #expect(try await daemon.freshStatus().lastSeq == 200)
        }
    }

    @Test("A client that reconnects resumes without loss from history since its last seq")
    func resume() async throws {
        try await withTestDaemon { daemon in
            await daemon.hub.apply(.fahrenheit(pi, 90))
            var client: TestClient? = try await daemon.connect()
            let subscribed = try await offload { [client] in
                try client!.expectHello()
                return try client!.call(.subscribe(events: [.reading]), as: SubscribeResult.self)
            }
            #expect(subscribed.lastSeq == 1 && subscribed.events == [.reading])
            await daemon.hub.apply(.fahrenheit(pi, 91))
            let seen = try await offload { [client] in try client!.nextEvent().seq }
            #expect(seen == 2)
            client = nil  // disconnected
            for value in 92...95 { await daemon.hub.apply(.fahrenheit(pi, Double(value))) }
            let again = try await daemon.connect()
            let missed = try await offload {
                try again.expectHello()
                return try again.call(.history(HistoryQuery(since: 2)), as: HistoryResult.self)
            }
            #expect(missed.events.compactMap(\.seq) == [3, 4, 5, 6])
            #expect(missed.complete && missed.lastSeq == 6)
        }
    }

    @Test("history since the largest seq, as a client writes it, answers nothing, committed or not")
    func historySinceLargestSeq() async throws {
        try await withTestDaemon { daemon in
            for value in 90...92 { await daemon.hub.apply(.fahrenheit(pi, Double(value))) }
            await daemon.history.flush()
            await daemon.hub.apply(.fahrenheit(pi, 93))  // in memory
            let client = try await daemon.connect()
            let replies = try await offload {
                try client.expectHello()
                return try [
                    #"{"v":1,"id":1,"cmd":"history","since":18446744073709551615}"#,
                    #"{"v":1,"id":2,"cmd":"history","since":18446744073709551615,"address":"\#(pi)"}"#,
                ].map { line in
                    try client.send(line)
                    return try #require(try client.readLine())
                }
            }
            for reply in replies {
                let result = try JSONLines.decode(Reply<HistoryResult>.self, from: Array(reply.utf8)).get()
                #expect(result.events.isEmpty, "\(reply)")
                #expect(result.lastSeq == 4)
            }
        }
    }

    @Test("A history page longer than half the smallest client queue is cut short, with more; nobody is dropped")
    func historyPageFitsTheQueue() async throws {
        try await withTestDaemon(configure: { $0.maxQueuedBytes = 64 << 10 }) { daemon in
            // 1,000 readings: a full page is about 170 KB, far over the 64 KiB queue.
            for index in 0..<1000 { await daemon.hub.apply(.fahrenheit(pi, 90 + Double(index % 100) / 10)) }
            let client = try await daemon.subscriber()
            let (seqs, pages, longest) = try await offload {
                var seqs: [UInt64] = []
                var pages = 0
                var longest = 0
                while true {
                    let line = try client.request(.history(HistoryQuery(since: seqs.last ?? 0)))
                    longest = max(longest, line.utf8.count)
                    let page = try JSONLines.decode(Reply<HistoryResult>.self, from: Array(line.utf8)).get()
                    seqs += page.events.compactMap(\.seq)
                    pages += 1
                    if !page.more { return (seqs, pages, longest) }
                }
            }
            #expect(seqs == Array(1...1000))
            #expect(pages > 5, "pages of at most 32 KiB")
            #expect(longest <= 32 << 10)
            #expect(await daemon.server.currentStatistics().droppedSlow == 0)
        }
    }

    @Test("A client that half-closes still gets its answer")
    func halfClose() async throws {
        try await withTestDaemon { daemon in
            let client = try await daemon.connect()
            let (reply, end) = try await offload {
                try client.expectHello()
                try client.send(#"{"v":1,"id":1,"cmd":"status"}"#)
                shutdown(client.fd, Int32(SHUT_WR))
                return (try client.readLine(), try client.readLine())
            }
            #expect(reply?.contains(#""ok":true"#) == true)
            #expect(end == nil)
        }
    }

    @Test("Requests on one connection are answered in order")
    func pipelined() async throws {
        try await withTestDaemon { daemon in
            let client = try await daemon.connect()
            let ids = try await offload {
                try client.expectHello()
                var batch: [UInt8] = []
                for id in 1...20 {
                    batch += try JSONLines.encode(Request(id: id, id.isMultiple(of: 2) ? .status : .peripherals))
                }
                try client.sendRaw(batch)
                return try (1...20).map { _ -> Int? in
                    guard let line = try client.readLine(),
                        case .reply(let id, _) = ServerLine.classify(Array(line.utf8))
                    else { return nil }
                    return id
                }
            }
            #expect(ids == Array(1...20))
        }
    }

    @Test("Subscribing while readings flow misses nothing after the reply's last_seq")
    func subscribeIsGapFree() async throws {
        try await withTestDaemon { daemon in
            let client = try await daemon.connect()
            try await offload { try client.expectHello() }
            let hub = daemon.hub
            let pi = pi
            let producer = Task {
                for index in 1...2000 { await hub.apply(.fahrenheit(pi, Double(index) / 100)) }
            }
            let (subscribed, seqs) = try await offload {
                let subscribed = try client.call(.subscribe(events: [.reading]), as: SubscribeResult.self)
                var seqs: [UInt64] = []
                while subscribed.lastSeq < 2000, seqs.last != 2000 {
                    seqs.append(try client.nextEvent().seq ?? 0)
                }
                return (subscribed, seqs)
            }
            await producer.value
            let expected: [UInt64] = subscribed.lastSeq < 2000 ? Array((subscribed.lastSeq + 1)...2000) : []
            #expect(seqs == expected)
        }
    }

    @Test("A socket passed by systemd is served and left in place on stop")
    func socketActivation() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("activated.sock")
        let fd = try UnixSocket.listen(path: path)
        try await withTestDaemon(activated: (path, fd)) { daemon in
            let status = try await daemon.freshStatus()
            #expect(status.daemon == "blectld")
        }
        #expect(access(path, F_OK) == 0)  // systemd owns the socket file
    }
}
