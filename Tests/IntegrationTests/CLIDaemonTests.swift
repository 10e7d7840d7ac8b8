import BlectlProtocol
import Foundation
import TestSupport
import Testing

/// `blectl` against `blectld --mock`: exit statuses, units, what JSON passes through, and
/// `watch`'s events, columns and reconnection. In ``CLITests``, whose daemons run one at
/// a time.
extension CLITests {
    @Test("exit statuses tell failures apart: no such device, Bluetooth off, nothing fresh")
    func exitStatuses() async throws {
        try await DaemonFixture.with { fixture in
            try await fixture.waitForConnected(2)
            let unknown = try await fixture.blectl(["read", "no-such-device", "--timeout", "1"])
            #expect(unknown.status == 68)
            #expect(unknown.errors.contains("no-such-device"))
            try await fixture.inject("power-off", [("adapter", .string("hci0"))])
            try await fixture.waitForConnected(0)
            let scan = try await fixture.blectl(["scan", "--timeout", "1"])
            #expect(scan.status == 3)
            #expect(scan.errors.contains("powered off"))
            // Stored readings are printed, and why they are not fresh is said on stderr.
            let text = try await fixture.blectl(["read", "--timeout", "1"])
            #expect(text.status == 4)
            #expect(text.output.split(separator: "\n").count == 2)
            #expect(text.errors.contains("adapter hci0 is powered off — last reading "), "\(text.errors)")
            let json = try await fixture.blectl(["read", "--timeout", "1", "--json"])
            #expect(json.status == 4)
            let reports = try #require(
                try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
            #expect(reports.count == 2 && reports.allSatisfy { $0["fresh"] as? Bool == false })
            try await fixture.inject("power-on", [("adapter", .string("hci0"))])
            try await fixture.waitForConnected(2)
            #expect(try await fixture.blectl(["read", "--timeout", "15"]).status == 0)
        }
    }

    @Test(
        "exit status 77 for a user the socket refuses (blectl run as nobody)",
        .enabled(if: RootRequirement.testRuns, "needs root to run blectl as another user"))
    func permissionStatus() async throws {
        try RootRequirement.check("to run blectl as nobody")
        try #require(FileManager.default.isExecutableFile(atPath: NobodyUser.setpriv), "util-linux's setpriv")
        try await DaemonFixture.with(mockOptions: "--fast --thermometers 0") { fixture in
            let denied = try await run(
                NobodyUser.setpriv,
                NobodyUser.command([DaemonFixture.binary("blectl"), "--socket", fixture.socket, "status"]))
            #expect(denied.status == 77)
            #expect(denied.errors.contains("Permission denied"), "\(denied.errors)")
        }
    }

    @Test("exit status 75 when nothing arrives within the timeout")
    func timeoutStatus() async throws {
        try await DaemonFixture.with(mockOptions: "--fast --thermometers 0") { fixture in
            let read = try await fixture.blectl(["read", "--timeout", "1"])
            #expect(read.status == 75)
            #expect(read.errors.contains("within 1 s"))
        }
    }

    @Test("--unit F and BLECTL_UNIT show °F in text; JSON stays celsius")
    func units() async throws {
        try await DaemonFixture.with { fixture in
            try await fixture.waitForConnected(2)
            var environment = ProcessInfo.processInfo.environment
            environment["BLECTL_UNIT"] = "f"
            for (arguments, environment) in [(["--unit", "F"], nil), ([], environment)] {
                let read = try await fixture.blectl(["read", "--timeout", "15"] + arguments, environment: environment)
                #expect(read.status == 0)
                // Thermometer 1 reports in °F: the shown value is its own text.
                let line = try #require(read.output.split(separator: "\n").first { $0.contains("00:00:01") })
                let raw = try #require(line.firstMatch(of: /raw "([0-9.]+) F"/)?.output.1)
                #expect(line.contains("  \(raw) °F  "), "\(line)")
                #expect(!read.output.contains("°C"))
                let status = try await fixture.blectl(["status"] + arguments, environment: environment)
                #expect(status.output.contains("°F") && !status.output.contains("°C"))
            }
            let json = try await fixture.blectl(["read", "--timeout", "15", "--json", "--unit", "F"])
            let reports = try #require(
                try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [[String: Any]])
            #expect(
                reports.allSatisfy {
                    Set($0.keys) == [
                        "address", "name", "celsius", "raw", "unit", "profile", "model", "manufacturer", "time", "seq",
                        "age_seconds", "fresh",
                    ]
                })
        }
    }

    @Test("status --json and read --json print the daemon's objects with every field")
    func jsonPassesThrough() async throws {
        try await DaemonFixture.with { fixture in
            try await fixture.waitForConnected(2)
            let socket = fixture.socket
            // The client blocks on its socket: off the cooperative threads (see offload).
            let client = try await offload {
                let client = try SocketClient(path: socket, receiveTimeout: 20)
                _ = client.readLine()  // hello
                return client
            }
            for (command, arguments) in [("status", ["status"]), ("read", ["read", "--timeout", "15"])] {
                let line = try await offload {
                    client.send(#"{"v":1,"id":1,"cmd":"\#(command)"}"# + "\n")
                    return client.readLine()
                }
                let reply = try #require(
                    line.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } as? [String: Any])
                let printed = try await fixture.blectl(arguments + ["--json"])
                let object = try JSONSerialization.jsonObject(with: Data(printed.output.utf8))
                #expect(keyPaths(object) == keyPaths(reply["result"] as Any), "\(command)")
            }
        }
    }

    @Test("watch: people's events by default, --events all adds discoveries, columns stay put")
    func watchEvents() async throws {
        try await DaemonFixture.with(mockOptions: "--fast --notify-interval 200ms --others 3") { fixture in
            try await fixture.waitForConnected(2)
            let blectl = DaemonFixture.binary("blectl")
            let chosen = try ChildProcessLines.start(blectl, ["--socket", fixture.socket, "watch", "--json"])
            defer { chosen.stop() }
            let everything = try ChildProcessLines.start(
                blectl, ["--socket", fixture.socket, "watch", "--events", "all"])
            defer { everything.stop() }
            _ = try await chosen.first { $0["type"] as? String == "reading" }
            _ = try await everything.firstText { $0.contains(" reading ") }
            #expect(try await fixture.blectl(["scan", "--all", "--timeout", "2"]).status == 0)
            // blectld announces a device again at most every 10 s.
            let seen = try await everything.firstText(within: .seconds(30)) { $0.contains(" peripheral_seen ") }
            let reading = try await everything.firstText { $0.contains(" reading ") }
            // The address column starts at the same place whatever the event and the name.
            let columns = [seen, reading].map { line in
                line.firstRange(of: /[0-9A-F]{2}(:[0-9A-F]{2}){5}/).map {
                    line.distance(from: line.startIndex, to: $0.lowerBound)
                }
            }
            #expect(columns[0] != nil && columns[0] == columns[1], "\(seen)\n\(reading)")
            // The default leaves discoveries out: the first reading after the scan comes with none before it.
            let lastSeq = try await fixture.lastSeq()
            let next = try await chosen.first {
                $0["type"] as? String == "peripheral_seen" || (($0["seq"] as? Int).map { $0 > lastSeq } ?? false)
            }
            #expect(next["type"] as? String == "reading")
        }
    }

    @Test("watch: dropped for not reading, it reconnects, prints what it missed once, notices on stderr")
    func watchResumes() async throws {
        try await DaemonFixture.with(
            mockOptions: "--fast --notify-interval 5ms", configuration: "client_queue_bytes = 65536\n"
        ) { fixture in
            try await fixture.waitForConnected(2)
            let watch = try ChildProcessLines.start(
                DaemonFixture.binary("blectl"), ["--socket", fixture.socket, "watch", "--json"])
            defer { watch.stop() }
            let first = try await watch.first { $0["type"] as? String == "reading" }
            kill(watch.pid, SIGSTOP)
            try await withTimeout(.seconds(20)) {
                while !fixture.daemon.log().contains("is not reading") { try await Task.sleep(for: .milliseconds(50)) }
            }
            kill(watch.pid, SIGCONT)
            try await withTimeout(.seconds(20)) {
                while !watch.errors().contains("reconnected") { try await Task.sleep(for: .milliseconds(50)) }
            }
            let caughtUp = try await fixture.lastSeq()
            // Every reading from the first to the daemon's latest, once each, in order.
            var expected = try #require(first["seq"] as? Int) + 1
            while expected <= caughtUp {
                let text = try await watch.firstText { _ in true }
                let line = try #require(ChildProcessLines.parse(text), "stdout has only events: \(text)")
                #expect(line["seq"] as? Int == expected, "\(line)")
                expected = (line["seq"] as? Int ?? expected) + 1
            }
            #expect(watch.errors().contains("lost the connection to blectld"))
            #expect(!watch.errors().contains("some readings were lost"))
            // SIGTERM (like Ctrl-C) is the normal way to stop.
            kill(watch.pid, SIGTERM)
            #expect(await watch.waitForExit() == 0)
        }
    }
}

extension DaemonFixture {
    /// The daemon's `last_seq`, from `blectl status --json`.
    func lastSeq() async throws -> Int {
        let status = ChildProcessLines.parse(try await blectl(["status", "--json"]).output)
        return try #require(status?["last_seq"] as? Int)
    }
}

/// Every key path in a JSON value (`connected.0.last_reading.celsius`), to compare shapes.
func keyPaths(_ value: Any, prefix: String = "") -> Set<String> {
    if let object = value as? [String: Any] {
        return object.reduce(into: Set<String>()) { paths, member in
            paths.insert(prefix + member.key)
            paths.formUnion(keyPaths(member.value, prefix: prefix + member.key + "."))
        }
    }
    if let array = value as? [Any] {
        return array.enumerated().reduce(into: Set<String>()) { paths, element in
            paths.formUnion(keyPaths(element.element, prefix: prefix + "\(element.offset)."))
        }
    }
    return []
}
