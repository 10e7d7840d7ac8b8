import Foundation
import Glibc
import TestSupport
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
    /// 200 readings more (or until a minute passed): the readings' `seq`s, and the longest
    /// wait between two.
    static func readUntilDropped(_ subscriber: SocketClient, _ count: Int, log: () -> String) -> ([Int], Duration) {
        var seqs: [Int] = []
        var longestWait = Duration.zero
        var last = ContinuousClock.now
        var end = Int.max
        let deadline = last + Duration.seconds(60).scaled
        while seqs.count < end, ContinuousClock.now < deadline, let object = subscriber.readObject() {
            let now = ContinuousClock.now
            if let seq = object["seq"] as? Int {
                seqs.append(seq)
                longestWait = max(longestWait, now - last)
                last = now
            }
            if end == .max, seqs.count % 50 == 0, drops(log()) >= count { end = seqs.count + 200 }
        }
        return (seqs, longestWait)
    }

    @Test("64 clients that close with a read pending: their descriptors come back at once, the next is served")
    func vanishingClients() async throws {
        try await DaemonFixture.with(configuration: "max_clients_per_user = 64\n") { fixture in
            let baseline = Self.descriptors(fixture)
            let socket = fixture.socket
            var (clients, greeted) = try await offload {
                let clients = try (0..<64).map { _ in try SocketClient(path: socket) }
                let greeted = clients.filter { $0.readObject()?["type"] as? String == "hello" }.count
                for client in clients { client.send(Self.hopelessRead) }
                return (clients, greeted)
            }
            #expect(greeted == 64)
            #expect(Self.descriptors(fixture) == baseline + 64)
            clients.removeAll()  // all 64 close
            let start = ContinuousClock.now
            #expect(await eventually { Self.descriptors(fixture) == baseline })
            print("descriptors: \(baseline) before, back to \(baseline) within \(ContinuousClock.now - start)")
            let first = try await offload { try SocketClient(path: socket).readObject()?["type"] as? String }
            #expect(first == "hello")
        }
    }

    @Test("a client that half-closes gets its reading")
    func halfClose() async throws {
        try await DaemonFixture.with { fixture in
            let socket = fixture.socket
            let (answered, readings, end) = try await offload {
                let client = try SocketClient(path: socket, receiveTimeout: 20)
                _ = client.readLine()
                client.send(#"{"v":1,"id":5,"cmd":"read","timeout":15}"# + "\n")
                shutdown(client.fd, Int32(SHUT_WR))
                let reply = client.readObject()
                let answered = reply?["id"] as? Int == 5 && reply?["ok"] as? Bool == true
                return (answered, (reply?["result"] as? [Any])?.count ?? 0, client.readLine())
            }
            #expect(answered && readings > 0)
            #expect(end == nil)  // then closed
        }
    }

    @Test(
        "under vanishing readers and stuck subscribers, a subscriber gets every reading without a gap",
        .enabled(if: testTimeScale == 1, "timing under a sanitizer's load (clean-clone CI): make test runs it"))
    func readingsFlowUnderAbuse() async throws {
        let configuration = """
            max_clients = 256
            max_clients_per_user = 256
            max_queued_bytes_total = 65536

            """
        try await DaemonFixture.with(mockOptions: "--fast --notify-interval 10ms", configuration: configuration) {
            fixture in
            let before = Self.memory(fixture)
            let socket = fixture.socket
            let subscriber = try await offload {
                let subscriber = try SocketClient(path: socket)
                _ = subscriber.readLine()
                subscriber.send(#"{"v":1,"id":1,"cmd":"subscribe","events":["reading","reading_error"]}"# + "\n")
                return subscriber
            }
            let daemon = fixture.daemon
            // Few stuck subscribers: enough for the bound, light enough for the tests beside.
            async let reading = offload { Self.readUntilDropped(subscriber, 16, log: { daemon.log() }) }
            let stuck = try await offload {
                try Self.vanishingReaders(64, socket: socket)
                return try (0..<16).map { _ in
                    let client = try SocketClient(path: socket)
                    client.send(#"{"v":1,"id":1,"cmd":"subscribe"}"# + "\n")
                    return client
                }
            }
            let (seqs, longestWait) = try await reading
            withExtendedLifetime(stuck) {}  // stuck until here
            let dropped = Self.drops(daemon.log())
            print("\(seqs.count) readings, longest wait \(longestWait), \(dropped) stuck clients dropped")
            print("RSS: \(before) before, \(Self.memory(fixture)) after (debug build)")
            #expect(dropped == 16)
            #expect(seqs.count >= 250)
            #expect(zip(seqs, seqs.dropFirst()).allSatisfy { $1 == $0 + 1 })
            // A stall, not a speed check: readings come every 5 ms on average.
            #expect(longestWait < Duration.seconds(5).scaled)
            #expect(!daemon.log().contains("client 1 is not reading"))
        }
    }
}

/// Runs blocking socket work on a dispatch thread: blocking one of Swift's few cooperative
/// threads for seconds would stall every other test's tasks.
func offload<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
    }
}
