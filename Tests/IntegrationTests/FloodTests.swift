import Foundation
import TestSupport
import Testing

/// Issue 25, item 5: a flood of devices must not starve the daemon.
///
/// The mock announces 10,000 devices 4 s after it starts, 500 of them calling themselves
/// "Thermometer" without being one, 100 of those never answering `Connect`; one real Pi
/// thermometer notifies every second (counter pattern). Throughout, the real thermometer's
/// readings keep coming on time with no gap in `seq`, `blectl status --json` answers within
/// 1 s, blectld's RSS stays under its bound, and afterwards the real thermometer
/// reconnects after a remote disconnect and after bluetoothd restarts.
/// Heavy (a mock announcing 10,000 devices saturates a core): `make test` runs it on its
/// own after the other suites, so that neither skews the other's timing.
@Suite("A flood of devices", .serialized, .enabled(if: heavyTestsRun, "make test runs it alone"))
struct FloodTests {
    static let pi = "DC:A6:32:00:00:01"
    static let mockOptions =
        "--fast --notify-interval 1s --pattern counter --thermometers 1 --others 0 --decoys 10000 "
        + "--fake-thermometers 500 --hanging-connects 100 --decoy-interval 20s --decoys-after 4s"
    /// What blectld (a debug build) may hold with the flood's 10,000 devices mirrored: its
    /// idle size, the BlueZ mirror's 10,000 devices, and bounded tables (docs/protocol.md).
    static let rssLimitKB = 64_000

    @Test("10,000 devices, 500 fake thermometers, 100 hanging connects: the real one keeps delivering")
    func flood() async throws {
        try await DaemonFixture.with(mockOptions: Self.mockOptions, arguments: ["--log-level", "info"]) { fixture in
            try await fixture.waitForConnected(1, within: .seconds(10))
            let events = try EventRecorder(socket: fixture.socket)
            defer { events.stop() }
            let cpuBefore = try ProcessFigures(pid: fixture.daemon.pid)
            let started = ContinuousClock.now
            var worstStatus = Duration.zero
            var worstRSS = 0
            // The flood arrives 4 s after the mock's start and ramps up over 20 s (500 new devices a
            // second, then 500 advertisements a second); watch 40 s.
            while ContinuousClock.now - started < .seconds(40) {
                let asked = ContinuousClock.now
                let status = try await fixture.blectl(["status", "--json"], timeout: .seconds(10))
                let latency = ContinuousClock.now - asked
                #expect(status.status == 0)
                #expect(latency < .seconds(1), "status took \(latency)")
                worstStatus = max(worstStatus, latency)
                let figures = try ProcessFigures(pid: fixture.daemon.pid)
                worstRSS = max(worstRSS, figures.rssKB)
                try await Task.sleep(for: .milliseconds(500))
            }
            let cpuAfter = try ProcessFigures(pid: fixture.daemon.pid)
            let watched = ContinuousClock.now - started
            let cpu = Double(cpuAfter.cpuTicks - cpuBefore.cpuTicks) / Double(sysconf(Int32(_SC_CLK_TCK)))
            print(
                "flood: blectld used \(cpu) s of CPU in \(watched), status at worst \(worstStatus), "
                    + "RSS at worst \(worstRSS) kB")
            #expect(worstRSS < Self.rssLimitKB, "blectld's RSS reached \(worstRSS) kB")

            let readings = events.readings(from: Self.pi)
            print("flood: \(readings.count) readings from the real thermometer in \(watched)")
            #expect(readings.count >= 34, "only \(readings.count) readings in \(watched)")
            // One a second is sent; on time means a few seconds at most between two (with every
            // suite running beside it, the debug mock itself sends up to a few seconds late; at
            // 4d092b0 readings came up to 29 s late in the issue's report).
            for (before, after) in zip(readings, readings.dropFirst()) {
                #expect(after.seq == before.seq + 1, "seq jumped from \(before.seq) to \(after.seq)")
                let gap = after.received - before.received
                #expect(gap < .seconds(5), "readings \(before.seq) and \(after.seq) came \(gap) apart")
            }

            // Afterwards: the real thermometer, known to work, goes before the decoys.
            let mark = events.count
            try await fixture.inject("disconnect", [("address", .string(Self.pi))])
            try await events.waitForReading(from: Self.pi, after: mark, within: .seconds(20))
            let restart = events.count
            try await fixture.inject("bluetoothd-stop", [("restart_ms", .int32(500))])
            try await events.waitForReading(from: Self.pi, after: restart, within: .seconds(30))
        }
    }
}

/// A reading as the subscriber saw it.
struct ObservedReading: Sendable {
    let seq: Int
    let received: ContinuousClock.Instant
}

/// Subscribes to readings and connection events on a thread of its own (the flood must not
/// slow the test's reader), recording when each line arrived.
final class EventRecorder: @unchecked Sendable {
    // @unchecked Sendable: `lines` and `stopped` are used under `lock`; `client` only on `thread`.
    private struct Line {
        let type: String?
        let address: String?
        let seq: Int?
        let received: ContinuousClock.Instant
    }
    private let lock = NSLock()
    private var lines: [Line] = []
    private var stopped = false
    private let client: SocketClient

    init(socket: String) throws {
        client = try SocketClient(path: socket, receiveTimeout: 1)
        _ = client.readLine()  // hello
        client.send(#"{"v":1,"id":1,"cmd":"subscribe","events":["reading","connected","disconnected"]}"# + "\n")
        Thread { [self] in run() }.start()
    }

    private func run() {
        while !lock.withLock({ stopped }) {
            guard let line = client.readLine() else { continue }
            guard let object = ChildProcessLines.parse(line) else { continue }
            let entry = Line(
                type: object["type"] as? String, address: object["address"] as? String, seq: object["seq"] as? Int,
                received: .now)
            lock.withLock { lines.append(entry) }
        }
    }

    func stop() { lock.withLock { stopped = true } }

    var count: Int { lock.withLock { lines.count } }

    func readings(from address: String, after mark: Int = 0) -> [ObservedReading] {
        lock.withLock {
            lines.dropFirst(mark).compactMap { line in
                guard line.type == "reading", line.address == address, let seq = line.seq else { return nil }
                return ObservedReading(seq: seq, received: line.received)
            }
        }
    }

    /// Waits (checking every 100 ms) for a reading from `address` after line `mark`.
    func waitForReading(from address: String, after mark: Int, within timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        while readings(from: address, after: mark).isEmpty {
            guard ContinuousClock.now < deadline else {
                throw TestSupportError("no reading from \(address) within \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }
}

/// CPU time and resident memory of a process, from /proc.
struct ProcessFigures {
    let cpuTicks: Int
    let rssKB: Int

    init(pid: Int32) throws {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // Fields after the command's closing parenthesis; utime and stime are 14 and 15.
        let fields = stat[stat.range(of: ")")!.upperBound...].split(separator: " ")
        cpuTicks = (Int(fields[11]) ?? 0) + (Int(fields[12]) ?? 0)
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        rssKB = Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}
