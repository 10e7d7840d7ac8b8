import Foundation
import Testing

/// Bad clients against the real daemon: it answers, drops, refuses — and keeps serving.
@Suite("blectld's socket under abuse", .serialized)
struct SocketAbuseTests {
    /// A status request succeeds on a fresh connection (the daemon is alive and serving).
    func alive(_ fixture: DaemonFixture) throws {
        let client = try SocketClient(path: fixture.socket)
        #expect(client.readObject()?["type"] as? String == "hello")
        client.send("{\"v\":1,\"id\":1,\"cmd\":\"status\"}\n")
        #expect(client.readObject()?["ok"] as? Bool == true)
    }

    @Test("garbage gets an error reply and the connection survives")
    func garbage() async throws {
        try await DaemonFixture.with { fixture in
            let client = try SocketClient(path: fixture.socket)
            _ = client.readLine()
            client.send([0xff, 0x00, 0x41, 0x0a])
            let reply = try #require(client.readObject())
            #expect(reply["ok"] as? Bool == false)
            client.send("{\"v\":1,\"id\":2,\"cmd\":\"status\"}\n")
            #expect(client.readObject()?["ok"] as? Bool == true)
        }
    }

    @Test("a 10 MB line gets line_too_long and the daemon keeps serving")
    func hugeLine() async throws {
        try await DaemonFixture.with { fixture in
            let client = try SocketClient(path: fixture.socket)
            _ = client.readLine()
            client.send([UInt8](repeating: UInt8(ascii: "x"), count: 10 << 20) + [0x0a])
            let reply = client.readObject()
            #expect((reply?["error"] as? [String: Any])?["code"] as? String == "line_too_long")
            try alive(fixture)
        }
    }

    @Test("500 clients: the limit is enforced, the daemon lives")
    func manyClients() async throws {
        try await DaemonFixture.with { fixture in
            var clients: [SocketClient] = []
            var refused = 0
            for _ in 0..<500 {
                guard let client = try? SocketClient(path: fixture.socket, receiveTimeout: 2) else {
                    refused += 1
                    continue
                }
                if let first = client.readObject(), first["type"] as? String != "hello" { refused += 1 }
                clients.append(client)
            }
            #expect(refused >= 500 - 64)
            clients.removeAll()
            try await Task.sleep(for: .milliseconds(300))
            try alive(fixture)
        }
    }

    @Test("a subscriber that never reads is dropped; others keep receiving")
    func stuckClient() async throws {
        try await DaemonFixture.with(mockOptions: "--fast --notify-interval 1ms") { fixture in
            let stuck = try SocketClient(path: fixture.socket)
            stuck.send("{\"v\":1,\"id\":1,\"cmd\":\"subscribe\"}\n")
            let reader = try SocketClient(path: fixture.socket)
            _ = reader.readLine()
            reader.send("{\"v\":1,\"id\":1,\"cmd\":\"subscribe\"}\n")
            // Read on until the daemon reports dropping the stuck client (its queue overflowed).
            var readings = 0
            var dropped = false
            let deadline = ContinuousClock.now + .seconds(30)
            while !dropped, ContinuousClock.now < deadline, let line = reader.readLine() {
                if line.contains("\"type\":\"reading\"") { readings += 1 }
                if readings % 500 == 0 { dropped = fixture.daemon.log().contains("is not reading") }
            }
            #expect(dropped)
            #expect(readings > 1000)
            // The stuck one was cut off: reading it to the end finishes (EOF) instead of timing out.
            var received = 0
            while let line = stuck.readLine() { received += line.count }
            #expect(received > 0)
            // And the reader still receives.
            #expect(reader.readLine() != nil)
            try alive(fixture)
        }
    }

    @Test("history resumes by sequence number without loss")
    func historyResume() async throws {
        try await DaemonFixture.with { fixture in
            let client = try SocketClient(path: fixture.socket)
            _ = client.readLine()
            client.send("{\"v\":1,\"id\":1,\"cmd\":\"subscribe\"}\n")
            var seqs: [Int] = []
            while seqs.count < 6, let object = client.readObject() {
                if object["type"] as? String == "reading", let seq = object["seq"] as? Int { seqs.append(seq) }
            }
            let resumeFrom = try #require(seqs.first)
            let again = try SocketClient(path: fixture.socket)
            _ = again.readLine()
            again.send("{\"v\":1,\"id\":2,\"cmd\":\"history\",\"since\":\(resumeFrom)}\n")
            let reply = try #require(again.readObject())
            let result = try #require(reply["result"] as? [String: Any])
            let items = try #require(result["readings"] as? [[String: Any]] ?? result["events"] as? [[String: Any]])
            let history = items.compactMap { $0["seq"] as? Int }
            #expect(history.first == seqs.dropFirst().first)
            #expect(Array(history.prefix(seqs.count - 1)) == Array(seqs.dropFirst()))
        }
    }
}
