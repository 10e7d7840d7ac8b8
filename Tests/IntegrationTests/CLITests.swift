import Foundation
import TestSupport
import Testing

/// The real `blectld --mock` and `blectl` binaries, end to end.
@Suite("blectld --mock and blectl", .serialized)
struct CLITests {
    @Test("scan, read and status print the documented JSON shapes")
    func jsonShapes() async throws {
        try await DaemonFixture.with { fixture in
            try await fixture.waitForConnected(2)
            let read = try await fixture.blectl(["read", "--json", "--timeout", "15"])
            #expect(read.status == 0)
            let readings = try #require(
                try JSONSerialization.jsonObject(with: Data(read.output.utf8)) as? [[String: Any]])
            #expect(readings.count == 2)
            for reading in readings {
                for key in ["address", "name", "celsius", "raw", "unit", "time", "seq"] {
                    #expect(reading[key] != nil, "read --json lacks \(key)")
                }
                #expect(rfc3339(reading["time"] as? String ?? "") != nil)
                #expect((reading["celsius"] as? Double).map { (30.0...90.0).contains($0) } == true)
            }
            #expect(Set(readings.compactMap { $0["unit"] as? String }) == ["F", "C"])

            let scan = try await fixture.blectl(["scan", "--all", "--json", "--timeout", "3"])
            #expect(scan.status == 0)
            let peripherals = try #require(
                try JSONSerialization.jsonObject(with: Data(scan.output.utf8)) as? [[String: Any]])
            for peripheral in peripherals {
                for key in ["address", "name", "rssi", "thermometer"] { #expect(peripheral.keys.contains(key)) }
            }
            #expect(peripherals.contains { $0["thermometer"] as? Bool == false })

            let status = try await fixture.blectl(["status", "--json"])
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(status.output.utf8)) as? [String: Any])
            #expect(object["state"] as? String == "poweredOn")
            #expect((object["connected"] as? [Any])?.count == 2)
        }
    }

    @Test("human output: aligned columns with °C and the raw text")
    func humanOutput() async throws {
        try await DaemonFixture.with { fixture in
            try await fixture.waitForConnected(2)
            let read = try await fixture.blectl(["read", "--timeout", "15"])
            #expect(read.status == 0)
            let lines = read.output.split(separator: "\n")
            #expect(lines.count == 2)
            #expect(lines.allSatisfy { $0.hasPrefix("Thermometer  DC:A6:32:00:00:0") && $0.contains(" °C  (raw \"") })
        }
    }

    @Test("watch streams readings, and a reading follows a remote disconnect")
    func watchAfterFault() async throws {
        try await DaemonFixture.with { fixture in
            _ = try await fixture.blectl(["read", "--timeout", "15"])
            let watch = try ChildProcessLines.start(
                DaemonFixture.binary("blectl"), ["--socket", fixture.socket, "watch", "--json"])
            defer { watch.stop() }
            _ = try await watch.first { $0["type"] as? String == "reading" }
            try await fixture.inject("disconnect", [("address", .string("DC:A6:32:00:00:01"))])
            _ = try await watch.first {
                $0["type"] as? String == "disconnected" && $0["address"] as? String == "DC:A6:32:00:00:01"
            }
            let after = try await watch.first {
                $0["type"] as? String == "reading" && $0["address"] as? String == "DC:A6:32:00:00:01"
            }
            #expect(after["raw"] as? String != nil)
        }
    }

    @Test("SIGTERM: the socket is removed, the mock stack stopped, exit 0")
    func sigterm() async throws {
        try await DaemonFixture.with { fixture in
            try await fixture.waitForConnected(2)
            fixture.daemon.signal(SIGTERM)
            let status = await fixture.daemon.waitForExit(timeout: .seconds(10))
            #expect(status == 0)
            #expect(!fixture.daemon.log().contains("link lost"), "stopping is not a lost link")
            #expect(!FileManager.default.fileExists(atPath: fixture.socket))
            let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: fixture.directory.path)) ?? []
            #expect(!leftovers.contains { $0.hasPrefix("blectld-mock-") })
        }
    }

    @Test("the bus going away: blectld says so, stops the mock stack and exits 1")
    func busLost() async throws {
        try await DaemonFixture.with { fixture in
            let (bus, mock) = try fixture.stack()
            kill(bus, SIGKILL)
            let status = await fixture.daemon.waitForExit(timeout: .seconds(10))
            #expect(status == 1)
            #expect(fixture.daemon.log().contains("lost the connection to the mock adapter's D-Bus bus"))
            #expect(kill(mock, 0) != 0, "the mock is gone too")
        }
    }

    @Test("SIGHUP re-reads the configuration: a new log level takes effect at once")
    func sighupReload() async throws {
        try await DaemonFixture.with(arguments: [], configuration: "log_level = info\n") { fixture in
            _ = try await fixture.blectl(["status"])
            #expect(!fixture.daemon.log().contains("<7>"))
            try "log_level = debug\n".write(to: fixture.configurationFile, atomically: true, encoding: .utf8)
            fixture.daemon.signal(SIGHUP)
            try await withTimeout(.seconds(10)) {
                while !fixture.daemon.log().contains("reloaded") { try await Task.sleep(for: .milliseconds(50)) }
            }
            _ = try await fixture.blectl(["status"])
            try await withTimeout(.seconds(10)) {
                while !fixture.daemon.log().contains("<7>") { try await Task.sleep(for: .milliseconds(50)) }
            }
            #expect(fixture.daemon.isRunning)
        }
    }

    @Test("SIGHUP tells systemd: RELOADING=1 with MONOTONIC_USEC, then READY=1 once reloaded")
    func sighupNotifiesSystemd() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("notify")
        let receiver = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        defer { close(receiver) }
        try #require(receiver >= 0 && withUnixAddress(path, { bind(receiver, $0, $1) }) == 0)
        var timeout = timeval(tv_sec: Int(Duration.seconds(10).scaled.components.seconds), tv_usec: 0)
        setsockopt(receiver, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        try await DaemonFixture.with(environment: ["NOTIFY_SOCKET": path]) { fixture in
            let started = try await onOwnThread { try Self.datagrams(receiver, until: { $0.hasPrefix("READY=1") }) }
            #expect(!started.contains { $0.hasPrefix("RELOADING=1") })
            let before = Self.monotonicMicroseconds()
            fixture.daemon.signal(SIGHUP)
            let reload = try await onOwnThread { try Self.datagrams(receiver, until: { $0.hasPrefix("READY=1") }) }
            // STATUS= and WATCHDOG=1 may come between: the reload's are the last two.
            let reloading = try #require(reload.dropLast().last, "\(reload)")
            let lines = reloading.split(separator: "\n")
            #expect(lines.first == "RELOADING=1", "\(reload)")
            let stamp = try #require(lines.dropFirst().first.flatMap { UInt64($0.dropFirst("MONOTONIC_USEC=".count)) })
            #expect(lines.count == 2 && lines[1].hasPrefix("MONOTONIC_USEC="))
            #expect(stamp >= before && stamp <= Self.monotonicMicroseconds(), "\(stamp) not now (\(before))")
            #expect(fixture.daemon.log().contains("reloaded"))
        }
    }

    /// The datagrams `socket` receives up to and including the first that `last` accepts.
    private static func datagrams(_ socket: Int32, until last: (String) -> Bool) throws -> [String] {
        var received: [String] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw TestSupportError("no notification in time; got \(received)") }
            received.append(String(decoding: buffer[..<count], as: UTF8.self))
            if last(received[received.count - 1]) { return received }
        }
    }

    private static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1000
    }

    @Test("exit codes: 69 when the daemon is not running (with a hint), 64 for usage errors")
    func exitCodes() async throws {
        let missing = try await run(
            DaemonFixture.binary("blectl"), ["--socket", "/nonexistent/blectld.sock", "status"])
        #expect(missing.status == 69)
        #expect(missing.errors.contains("blectld --mock"))
        let usage = try await run(DaemonFixture.binary("blectl"), ["frobnicate"])
        #expect(usage.status == 64)
    }
}

/// Parses an RFC 3339 time with fractional seconds.
func rfc3339(_ text: String) -> Date? {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
    return formatter.date(from: text)
}
