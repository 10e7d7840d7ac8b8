import Foundation
import TestSupport
import Testing

/// Bad clients against the real daemon: it answers, drops, refuses — and keeps serving.
///
/// The clients block on their sockets, so each test's socket work runs through
/// ``offload(_:)``, off Swift's few cooperative threads, and returns what the test checks
/// (an expectation on a dispatch thread would not count for the test).
@Suite("blectld's socket under abuse", .serialized)
struct SocketAbuseTests {
    /// Whether a fresh connection is greeted and its status request answered (the daemon is
    /// alive and serving).
    static func statusAnswered(_ socket: String) throws -> Bool {
        let client = try SocketClient(path: socket)
        guard client.readObject()?["type"] as? String == "hello" else { return false }
        client.send("{\"v\":1,\"id\":1,\"cmd\":\"status\"}\n")
        return client.readObject()?["ok"] as? Bool == true
    }

    @Test("garbage gets an error reply and the connection survives")
    func garbage() async throws {
        try await DaemonFixture.with { fixture in
            let socket = fixture.socket
            let (refusal, status) = try await offload {
                let client = try SocketClient(path: socket)
                _ = client.readLine()
                client.send([0xff, 0x00, 0x41, 0x0a])
                let refusal = client.readObject()
                client.send("{\"v\":1,\"id\":2,\"cmd\":\"status\"}\n")
                return (refusal?["ok"] as? Bool, client.readObject()?["ok"] as? Bool)
            }
            #expect(refusal == false)
            #expect(status == true)
        }
    }

    @Test("a 10 MB line gets line_too_long and the daemon keeps serving")
    func hugeLine() async throws {
        try await DaemonFixture.with { fixture in
            let socket = fixture.socket
            let (code, alive) = try await offload {
                let client = try SocketClient(path: socket)
                _ = client.readLine()
                client.send([UInt8](repeating: UInt8(ascii: "x"), count: 10 << 20) + [0x0a])
                let reply = client.readObject()
                return ((reply?["error"] as? [String: Any])?["code"] as? String, try Self.statusAnswered(socket))
            }
            #expect(code == "line_too_long")
            #expect(alive)
        }
    }

    @Test(
        "500 clients: the limit is enforced, the daemon lives",
        .enabled(if: heavyTestsRun, "many descriptors: make test runs it alone"))
    func manyClients() async throws {
        try await DaemonFixture.with { fixture in
            let socket = fixture.socket
            let refused = try await offload {
                var clients: [SocketClient] = []
                var refused = 0
                for _ in 0..<500 {
                    guard let client = try? SocketClient(path: socket, receiveTimeout: 2) else {
                        refused += 1
                        continue
                    }
                    if let first = client.readObject(), first["type"] as? String != "hello" { refused += 1 }
                    clients.append(client)
                }
                return refused
            }  // all 500 close here
            #expect(refused >= 500 - 64)
            // Served again once the daemon has seen them go (until then: too_many_clients).
            #expect(await eventually { (try? await offload { try Self.statusAnswered(socket) }) == true })
        }
    }

    @Test("a subscriber that never reads is dropped; others keep receiving")
    func stuckClient() async throws {
        try await DaemonFixture.with(mockOptions: "--fast --notify-interval 1ms") { fixture in
            let (socket, daemon) = (fixture.socket, fixture.daemon)
            let outcome = try await offload {
                let stuck = try SocketClient(path: socket)
                stuck.send("{\"v\":1,\"id\":1,\"cmd\":\"subscribe\"}\n")
                let reader = try SocketClient(path: socket)
                _ = reader.readLine()
                reader.send("{\"v\":1,\"id\":1,\"cmd\":\"subscribe\"}\n")
                // Read on until the daemon reports dropping the stuck client (its queue overflowed).
                var readings = 0
                var dropped = false
                let deadline = ContinuousClock.now + Duration.seconds(30).scaled
                while !dropped, ContinuousClock.now < deadline, let line = reader.readLine() {
                    if line.contains("\"type\":\"reading\"") { readings += 1 }
                    if readings % 500 == 0 { dropped = daemon.log().contains("is not reading") }
                }
                // The stuck one was cut off: reading it to the end finishes (EOF) instead of timing out.
                var received = 0
                while let line = stuck.readLine() { received += line.count }
                let readerReceives = reader.readLine() != nil
                return (dropped, readings, received, readerReceives, try Self.statusAnswered(socket))
            }
            #expect(outcome.0, "the stuck client was dropped")
            #expect(outcome.1 > 1000, "readings")
            #expect(outcome.2 > 0, "the stuck client got something before it was cut off")
            #expect(outcome.3, "the reader still receives")
            #expect(outcome.4, "the daemon still serves")
        }
    }

    @Test("history resumes by sequence number without loss")
    func historyResume() async throws {
        try await DaemonFixture.with { fixture in
            let socket = fixture.socket
            let (seqs, history) = try await offload {
                let client = try SocketClient(path: socket)
                _ = client.readLine()
                client.send("{\"v\":1,\"id\":1,\"cmd\":\"subscribe\"}\n")
                var seqs: [Int] = []
                while seqs.count < 6, let object = client.readObject() {
                    if object["type"] as? String == "reading", let seq = object["seq"] as? Int { seqs.append(seq) }
                }
                guard let resumeFrom = seqs.first else { return (seqs, [Int]()) }
                let again = try SocketClient(path: socket)
                _ = again.readLine()
                again.send("{\"v\":1,\"id\":2,\"cmd\":\"history\",\"since\":\(resumeFrom)}\n")
                let result = again.readObject()?["result"] as? [String: Any]
                let items = result?["readings"] as? [[String: Any]] ?? result?["events"] as? [[String: Any]] ?? []
                return (seqs, items.compactMap { $0["seq"] as? Int })
            }
            #expect(seqs.count == 6)
            #expect(history.first == seqs.dropFirst().first)
            #expect(Array(history.prefix(seqs.count - 1)) == Array(seqs.dropFirst()))
        }
    }
}
