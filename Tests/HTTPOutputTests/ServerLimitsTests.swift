import Foundation
@testable import HTTPOutput
import TestSupport
import Testing
import ConcurrencySupport

/// Clients that misbehave get an error or a closed connection, within the bounds; the
/// output keeps serving and the hub keeps numbering readings.
@Suite("The HTTP server's bounds")
struct ServerLimitsTests {
    @Test("garbage gets 400 and a closed connection; the next client is served")
    func garbage() async throws {
        try await withTestOutput { output in
            let reply = try await onOwnThread {
                let connection = try TCPConnection(port: output.port)
                connection.send([0xff, 0x00, 0x41, 0x0d, 0x0a, 0x0d, 0x0a] + Array("\u{1}\u{2} / HTTP/9\r\n\r\n".utf8))
                return String(decoding: connection.readToEnd(), as: UTF8.self)
            }
            // libmicrohttpd answers some garbage with 400 and closes on the rest.
            #expect(reply.isEmpty || reply.hasPrefix("HTTP/1.1 400"))
            #expect(try await output.get("/metrics").status == 200)
        }
    }

    @Test("a request larger than the bound is refused (414 or 431) and closed")
    func largeRequest() async throws {
        try await withTestOutput { output in
            let long = try await request(output.port, "/" + String(repeating: "a", count: 20_000))
            #expect([414, 431].contains(long.status))
            let header = try await request(
                output.port, "/", headers: "X-Big: \(String(repeating: "b", count: 20_000))\r\n")
            #expect([413, 414, 431].contains(header.status))
            #expect(try await output.get("/").status == 200)
        }
    }

    @Test("a GET with a body is refused by closing the connection")
    func body() async throws {
        try await withTestOutput { output in
            let closed = try await onOwnThread {
                let connection = try TCPConnection(port: output.port)
                connection.send(Array("GET / HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\n\r\n".utf8))
                connection.send([UInt8](repeating: 0x41, count: 100_000))
                return connection.readToEnd()
            }
            #expect(!String(decoding: closed, as: UTF8.self).contains("200 OK"))
            #expect(try await output.get("/").status == 200)
        }
    }

    @Test("an idle or dribbling connection is closed after the idle timeout")
    func slowloris() async throws {
        try await withTestOutput(configure: { $0.idleTimeoutSeconds = 1 }) { output in
            let started = ContinuousClock.now
            let closed = try await onOwnThread {
                let idle = try TCPConnection(port: output.port, timeout: 20)
                let dribbling = try TCPConnection(port: output.port, timeout: 20)
                dribbling.send(Array("GET / HTTP/1.1\r\nX-Slow: ".utf8))
                return (idle.closedByPeer(), dribbling.closedByPeer())
            }
            #expect(closed == (true, true))
            #expect(ContinuousClock.now - started < Duration.seconds(10).scaled)
        }
    }

    @Test(
        "1,000 connections at once: the limit holds, readings keep their order, the output serves after",
        .enabled(if: heavyTestsRun, "many descriptors: make test runs it alone"))
    func thousandConnections() async throws {
        // Served connections stay open for the whole test: with the 10 s idle timeout, a
        // loaded machine took longer than that to count, and the freed places served others.
        let configure: (inout HTTPOutput.Configuration) -> Void = {
            $0.maxConnections = 64
            $0.idleTimeoutSeconds = 600
        }
        try await withTestOutput(configure: configure) { (output: TestOutput) async throws in
            let received = Locked<[UInt64]>([])
            await output.hub.addListener { event in
                if let seq = event.seq { received.withLock { $0.append(seq) } }
            }
            let flood = try ConnectionFlood(
                port: output.port, count: 1000, request: "GET /metrics HTTP/1.1\r\nHost: t\r\n\r\n")
            await output.apply(
                (0..<200).map { .fahrenheit("DC:A6:32:00:00:01", 100 + Double($0 % 10)) }, every: .milliseconds(10))
            #expect(flood.opened == 1000)
            // 64 are served (and kept open); the rest wait for a place.
            let answered = try await onOwnThread { flood.answered(within: 2) }
            #expect(answered > 0 && answered <= 64)
            flood.close()
            let seqs = received.withLock { $0 }
            #expect(seqs == Array(1...200))
            #expect(output.log.messages.contains { $0.contains("64 connections are open") })
            #expect(try await output.get("/").status == 200)
        }
    }

    @Test("listening beyond loopback warns that there is no authentication")
    func publicWarning() async throws {
        try await withTestOutput(address: "0.0.0.0:0") { output in
            #expect(
                output.log.records.contains {
                    $0.level == .warning && $0.message.contains("no authentication")
                        && $0.message.contains("reverse proxy")
                })
        }
        try await withTestOutput { output in
            #expect(!output.log.messages.contains { $0.contains("no authentication") })
        }
    }
}
