import Foundation
import Glibc
import Testing

/// Clients that leave or hoard, against the real daemon: slots, descriptors and memory
/// come back, and the real thermometers' readings keep flowing.
@Suite("blectld's socket limits under abuse", .serialized)
struct SocketLimitsAbuseTests {
    static let hopelessRead = #"{"v":1,"id":1,"cmd":"read","address":"AA:BB:CC:DD:EE:FF","timeout":300}"# + "\n"

    /// The daemon's open descriptors, from `/proc/PID/fd`.
    static func descriptors(_ fixture: DaemonFixture) -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(fixture.daemon.pid)/fd").count) ?? -1
    }

    /// Waits until `condition` holds or `timeout` passes; returns whether it holds.
    static func eventually(within timeout: Duration = .seconds(10), _ condition: () -> Bool) async -> Bool {
        let end = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < end else { return false }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    /// `count` clients that each ask for a 300 s `read` and close.
    static func vanishingReaders(_ count: Int, socket: String) throws {
        for _ in 0..<count {
            let client = try SocketClient(path: socket)
            _ = client.readLine()
            client.send(hopelessRead)
        }
    }

    /// How many clients the daemon's log says it dropped because all clients' queues
    /// together were full.
    static func drops(_ log: String) -> Int {
        log.components(separatedBy: "(max_queued_bytes_total)").count - 1
    }

    /// The daemon's resident memory now and at its peak (`VmRSS`, `VmHWM`).
    static func memory(_ fixture: DaemonFixture) -> String {
        let status = (try? String(contentsOfFile: "/proc/\(fixture.daemon.pid)/status", encoding: .utf8)) ?? ""
        func field(_ name: String) -> String {
            let line = status.split(separator: "\n").first { $0.hasPrefix(name + ":") } ?? ""
            return line.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces)
        }
        return "\(field("VmRSS")) (peak \(field("VmHWM")))"
    }

    /// Reads `subscriber`'s events until `count` clients were dropped for the total bound, and
    /// 500 readings more (or until a minute passed): the readings' `seq`s, and the longest
    /// wait between two.
    static func readUntilDropped(_ subscriber: SocketClient, _ count: Int, log: () -> String) -> ([Int], Duration) {
        var seqs: [Int] = []
        var longestWait = Duration.zero
        var last = ContinuousClock.now
        var end = Int.max
        let deadline = last + .seconds(60)
        while seqs.count < end, ContinuousClock.now < deadline, let object = subscriber.readObject() {
            let now = ContinuousClock.now
            if let seq = object["seq"] as? Int {
                seqs.append(seq)
                longestWait = max(longestWait, now - last)
                last = now
            }
            if end == .max, seqs.count % 100 == 0, drops(log()) >= count { end = seqs.count + 500 }
        }
        return (seqs, longestWait)
    }

    @Test("64 clients that close with a read pending: their descriptors come back at once, the next is served")
    func vanishingClients() async throws {
        try await DaemonFixture.with(configuration: "max_clients_per_user = 64\n") { fixture in
            let baseline = Self.descriptors(fixture)
            var clients: [SocketClient] = []
            for _ in 0..<64 {
                let client = try SocketClient(path: fixture.socket)
                #expect(client.readObject()?["type"] as? String == "hello")
                client.send(Self.hopelessRead)
                clients.append(client)
            }
            #expect(Self.descriptors(fixture) == baseline + 64)
            clients.removeAll()  // all 64 close
            let start = ContinuousClock.now
            #expect(await Self.eventually { Self.descriptors(fixture) == baseline })
            print("descriptors: \(baseline) before, back to \(baseline) within \(ContinuousClock.now - start)")
            let next = try SocketClient(path: fixture.socket)
            #expect(next.readObject()?["type"] as? String == "hello")
        }
    }

    @Test("a client that half-closes gets its reading")
    func halfClose() async throws {
        try await DaemonFixture.with { fixture in
            let client = try SocketClient(path: fixture.socket, receiveTimeout: 20)
            _ = client.readLine()
            client.send(#"{"v":1,"id":5,"cmd":"read","timeout":15}"# + "\n")
            shutdown(client.fd, Int32(SHUT_WR))
            let reply = try #require(client.readObject())
            #expect(reply["id"] as? Int == 5 && reply["ok"] as? Bool == true)
            #expect((reply["result"] as? [Any])?.isEmpty == false)
            #expect(client.readLine() == nil)  // then closed
        }
    }

    @Test("under vanishing readers and stuck subscribers, a subscriber gets every reading without a gap")
    func readingsFlowUnderAbuse() async throws {
        let configuration = """
            max_clients = 256
            max_clients_per_user = 256
            max_queued_bytes_total = 262144

            """
        try await DaemonFixture.with(mockOptions: "--fast --notify-interval 5ms", configuration: configuration) {
            fixture in
            let before = Self.memory(fixture)
            let subscriber = try SocketClient(path: fixture.socket)
            _ = subscriber.readLine()
            subscriber.send(#"{"v":1,"id":1,"cmd":"subscribe","events":["reading","reading_error"]}"# + "\n")
            let daemon = fixture.daemon
            let reader = Task.detached { Self.readUntilDropped(subscriber, 64, log: { daemon.log() }) }
            try Self.vanishingReaders(64, socket: fixture.socket)
            var stuck: [SocketClient] = []
            for _ in 0..<64 {
                let client = try SocketClient(path: fixture.socket)
                client.send(#"{"v":1,"id":1,"cmd":"subscribe"}"# + "\n")
                stuck.append(client)
            }
            let (seqs, longestWait) = await reader.value
            withExtendedLifetime(stuck) {}  // stuck until here
            let dropped = Self.drops(daemon.log())
            print("\(seqs.count) readings, longest wait \(longestWait), \(dropped) stuck clients dropped")
            print("RSS: \(before) before, \(Self.memory(fixture)) after (debug build)")
            #expect(dropped == 64)
            #expect(seqs.count >= 600)
            #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $1 == $0 + 1 })
            // A stall, not a speed check: readings come every 2.5 ms on average.
            #expect(longestWait < .seconds(5))
            #expect(!daemon.log().contains("client 1 is not reading"))
        }
    }
}
