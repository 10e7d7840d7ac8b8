import BlectlProtocol
import Foundation
import TestSupport
import Testing

/// The real `blectl` binary as a user first meets it: help, versions, usage errors and
/// what it says when no daemon runs. No daemon is started, except by the hint test.
@Suite("blectl's command line")
struct CLIUsageTests {
    static let blectl = DaemonFixture.binary("blectl")

    /// `blectl --dump-spec`, parsed.
    static func spec() async throws -> [String: Any] {
        let dump = try await run(blectl, ["--dump-spec"])
        #expect(dump.status == 0)
        return try #require(try JSONSerialization.jsonObject(with: Data(dump.output.utf8)) as? [String: Any])
    }

    static func commands(_ spec: [String: Any]) throws -> [[String: Any]] {
        try #require(spec["commands"] as? [[String: Any]])
    }

    @Test("every command has its own help, the same from 'help VERB' and 'VERB --help'")
    func perVerbHelp() async throws {
        let commands = try Self.commands(try await Self.spec())
        #expect(
            commands.compactMap { $0["name"] as? String } == [
                "status", "scan", "read", "history", "memory", "watch", "help",
            ])
        let global = try await run(Self.blectl, ["--help"])
        #expect(try await run(Self.blectl, ["help"]).output == global.output)
        for command in commands {
            let name = try #require(command["name"] as? String)
            let viaHelp = try await run(Self.blectl, ["help", name])
            let viaFlag = try await run(Self.blectl, [name, "--help"])
            #expect(viaHelp.status == 0 && viaFlag.status == 0)
            #expect(viaHelp.output == viaFlag.output)
            #expect(viaHelp.output.hasPrefix("Usage: blectl [OPTIONS] \(command["synopsis"] as? String ?? "?")\n"))
            #expect(viaHelp.output.contains("Examples:\n"))
            #expect(!viaHelp.output.contains("Commands:"), "\(name) --help printed the global help")
            for option in command["options"] as? [[String: Any]] ?? [] {
                #expect(viaHelp.output.contains("--\(option["name"] as? String ?? "?")"))
            }
            // A long synopsis has its summary on the next line.
            let synopsis = "  \(command["synopsis"] as? String ?? "?")"
            #expect(global.output.contains(synopsis + "  ") || global.output.contains(synopsis + "\n"))
        }
        // Help wins over a miscounted argument list, as a user asking for help expects.
        #expect(try await run(Self.blectl, ["read", "a", "b", "--help"]).status == 0)
        let unknown = try await run(Self.blectl, ["help", "frobnicate"])
        #expect(unknown.status == 64)
        #expect(unknown.errors.contains("unknown command 'frobnicate'"))
    }

    @Test("the global help lists every option and exit status of the spec dump, and not the dump itself")
    func globalHelpMatchesSpec() async throws {
        let spec = try await Self.spec()
        let help = try await run(Self.blectl, ["--help"]).output
        for option in spec["options"] as? [[String: Any]] ?? [] {
            let name = "--\(option["name"] as? String ?? "?")"
            #expect(help.contains(name) == !(option["hidden"] as? Bool ?? false), "\(name) in --help")
        }
        let statuses = try #require(spec["exit_statuses"] as? [[String: Any]])
        #expect(statuses.count >= 8)
        for status in statuses {
            let code = try #require(status["status"] as? Int)
            #expect(help.contains("\n" + String(repeating: " ", count: 4 - "\(code)".count) + "\(code)  "))
        }
        #expect(Set(statuses.compactMap { $0["status"] as? Int }).count == statuses.count, "statuses are distinct")
    }

    @Test("the parser accepts every option the spec dump lists, and nothing else")
    func parserMatchesSpec() async throws {
        let spec = try await Self.spec()
        let globals = spec["options"] as? [[String: Any]] ?? []
        for command in try Self.commands(spec) {
            let name = try #require(command["name"] as? String)
            for option in globals + (command["options"] as? [[String: Any]] ?? []) {
                let value = (option["choices"] as? [String])?.first ?? "1"
                let flag = ["--\(option["name"] as? String ?? "?")"] + (option["value"] is String ? [value] : [])
                let result = try await run(Self.blectl, [name] + flag + ["--help"])
                #expect(result.status == 0, "\(name) \(flag): \(result.errors)")
            }
            #expect(try await run(Self.blectl, [name, "--frobnicate", "--help"]).status == 64)
        }
    }

    @Test("--version on every binary prints the one version")
    func versions() async throws {
        for name in ["blectl", "blectld", "blectl-mock"] {
            let result = try await run(DaemonFixture.binary(name), ["--version"])
            #expect(result.status == 0, "\(name) --version: \(result.errors)")
            #expect(result.output == "\(name) \(ProtocolInfo.softwareVersion)\n")
        }
        #expect(try await Self.spec()["version"] as? String == ProtocolInfo.softwareVersion)
    }

    @Test("the one version is the package's (debian/changelog) and the daemon's hello and status")
    func versionEverywhere() async throws {
        let changelog = try String(contentsOfFile: InstallTests.repository + "/debian/changelog", encoding: .utf8)
        let top = changelog.split(separator: "\n").first.map(String.init) ?? ""
        #expect(top.hasPrefix("blectl (\(ProtocolInfo.softwareVersion)) "), "debian/changelog: \(top)")
        try await DaemonFixture.with { daemon in
            let client = try SocketClient(path: daemon.socket)
            #expect(client.readObject()?["version"] as? String == ProtocolInfo.softwareVersion, "hello")
            #expect(client.send(#"{"v":1,"id":1,"cmd":"status"}"# + "\n"))
            let status = client.readObject()?["result"] as? [String: Any]
            #expect(status?["version"] as? String == ProtocolInfo.softwareVersion, "status")
        }
    }

    @Test("usage errors: --timeout past the daemon's limits, a bad --unit or --events exit 64 and say why")
    func usageErrors() async throws {
        let socket = ["--socket", "/nonexistent/blectld.sock"]
        let cases: [([String], String)] = [
            (
                ["scan", "--timeout", "\(ProtocolInfo.maxScanSeconds + 1)"],
                "0 to \(ProtocolInfo.maxScanSeconds) seconds"
            ),
            (
                ["read", "--timeout", "\(ProtocolInfo.maxReadTimeoutSeconds + 1)"],
                "0 to \(ProtocolInfo.maxReadTimeoutSeconds) seconds"
            ),
            (["read", "--timeout", "soon"], "not 'soon'"),
            (["read", "--unit", "K"], "--unit is C or F"),
            (["watch", "--events", "reading,weather"], "not 'weather'"),
            (["history", "--since", "yesterday"], "a duration before now (90s, 15m, 24h, 7d) or an RFC 3339 time"),
            (["history", "--until", "2026-13-01T00:00:00Z"], "not '2026-13-01T00:00:00Z'"),
            (["history", "--since", "1h", "--until", "2h"], "is not after --since"),
            (["history", "--limit", "0"], "--limit is a whole number from 1"),
            (["history", "--csv", "--json"], "--csv and --json exclude each other"),
            (["history", "a", "b"], "unexpected argument 'b'"),
            (
                ["memory", "A4:C1:38:EE:00:01", "--timeout", "\(ProtocolInfo.maxMemoryDownloadSeconds + 1)"],
                "0 to \(ProtocolInfo.maxMemoryDownloadSeconds) seconds"
            ),
            (["memory", "Thermometer"], "takes a sensor's Bluetooth address"),
            (["memory", "--timeout", "5"], "--timeout needs an ADDRESS"),
            (["frobnicate"], "unknown command"),
        ]
        for (arguments, message) in cases {
            let result = try await run(Self.blectl, socket + arguments)
            #expect(result.status == 64, "\(arguments)")
            #expect(result.errors.contains(message), "\(arguments): \(result.errors)")
        }
        // The limits themselves are accepted: blectl goes on to connect (and finds no daemon).
        for arguments in [
            ["scan", "--timeout", "\(ProtocolInfo.maxScanSeconds)"],
            ["read", "--timeout", "\(ProtocolInfo.maxReadTimeoutSeconds)"],
            ["memory", "a4:c1:38:ee:00:01", "--timeout", "\(ProtocolInfo.maxMemoryDownloadSeconds)"],
            ["history", "--since", "7d", "--until", "90s", "--limit", "1", "--csv"],
            ["history", "--since", "2026-11-30T00:00:00Z", "--until", "2026-11-30T02:00:00+01:00"],
        ] {
            #expect(try await run(Self.blectl, socket + arguments).status == 69, "\(arguments)")
        }
        // The limits are stated in each command's help.
        #expect(try await run(Self.blectl, ["help", "scan"]).output.contains("0 to \(ProtocolInfo.maxScanSeconds)"))
        #expect(
            try await run(Self.blectl, ["help", "read"]).output.contains("0 to \(ProtocolInfo.maxReadTimeoutSeconds)"))
    }

    @Test("no daemon: exit 69, the cause, and a hint that keeps the user's socket")
    func noDaemonHint() async throws {
        let socket = "/nonexistent/blectld.sock"
        let viaOption = try await run(Self.blectl, ["--socket", socket, "status"])
        #expect(viaOption.status == 69)
        #expect(viaOption.errors.contains("No such file or directory"))
        #expect(viaOption.errors.contains("blectld --mock --socket \(socket)"))
        var environment = ProcessInfo.processInfo.environment
        environment[ProtocolInfo.socketEnvironmentVariable] = socket
        let viaEnvironment = try await run(Self.blectl, ["read"], environment: environment)
        #expect(viaEnvironment.status == 69)
        #expect(viaEnvironment.errors.contains("blectld --mock --socket \(socket)"))
    }

    @Test("README's blectl section lists the commands, options and exit statuses blectl has")
    func readmeMatches() async throws {
        let spec = try await Self.spec()
        let readme = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
                "../../README.md"), encoding: .utf8)
        let section = try #require(readme.split(separator: "\n## ").first { $0.hasPrefix("blectl\n") })
        for command in try Self.commands(spec) {
            #expect(section.contains("| `\(command["name"] as? String ?? "?")"), "README lacks \(command["name"]!)")
            for option in command["options"] as? [[String: Any]] ?? [] {
                #expect(section.contains("--\(option["name"] as? String ?? "?")"))
            }
        }
        for option in spec["options"] as? [[String: Any]] ?? [] where option["hidden"] as? Bool != true {
            #expect(section.contains("--\(option["name"] as? String ?? "?")"), "README lacks \(option["name"]!)")
        }
        let rows = section.split(separator: "\n").filter { $0.hasPrefix("| ") }
        let documented = Set(rows.compactMap { Int($0.dropFirst(2).prefix { $0 != " " }) })
        let statuses = Set((spec["exit_statuses"] as? [[String: Any]] ?? []).compactMap { $0["status"] as? Int })
        #expect(documented == statuses)
    }

    @Test("fields and event types a newer daemon adds pass through --json; text still prints")
    func unknownFieldsPassThrough() async throws {
        let reading =
            #"{"address":"DC:A6:32:00:00:01","age_seconds":0,"celsius":21.5,"co2":812,"dew_point":9.25,"fresh":true,"#
            + #""humidity":40.5,"name":"Sensor","profile":"ess","raw":"0868","seq":7,"time":"2026-11-30T01:02:03.456Z","#
            + #""unit":"C"}"#
        // A kind of value this build cannot show: printed as it came, shown without a temperature.
        let humidity =
            #"{"address":"DC:A6:32:00:00:02","age_seconds":0,"fresh":true,"humidity":40.5,"name":"Hygro","#
            + #""profile":"ess","raw":"0fd2","seq":8,"time":"2026-11-30T01:02:03.456Z","unit":"%"}"#
        let status =
            #"{"adapter":"hci0","battery_saver":true,"connected":[],"daemon":"blectld","last_seq":7,"#
            + #""started":"2026-11-30T00:00:00.000Z","state":"poweredOn","version":"9.9.9"}"#
        let event =
            #"{"address":"DC:A6:32:00:00:01","celsius":21.5,"humidity":40.5,"name":"Sensor","raw":"0868","#
            + #""seq":8,"time":"2026-11-30T01:02:04.456Z","type":"reading","unit":"C"}"#
        let newKind =
            #"{"address":"DC:A6:32:00:00:01","level":80,"name":"Sensor","time":"2026-11-30T01:02:05.456Z","#
            + #""type":"battery"}"#
        let socket = FileManager.default.temporaryDirectory.appendingPathComponent(
            "blectl-scripted-\(UUID().uuidString.prefix(8)).sock"
        ).path
        let daemon = try ScriptedDaemon(
            socket: socket,
            results: [
                "read": "[\(reading),\(humidity)]", "status": status,
                "subscribe": #"{"events":["reading"],"last_seq":7}"#,
            ],
            events: [event, newKind])
        defer { daemon.stop() }
        #expect(
            try await run(Self.blectl, ["--socket", socket, "read", "--json"]).output == "[\(reading),\(humidity)]\n")
        #expect(try await run(Self.blectl, ["--socket", socket, "status", "--json"]).output == status + "\n")
        let text = try await run(Self.blectl, ["--socket", socket, "read"])
        #expect(text.status == 0 && text.output.contains("Sensor  DC:A6:32:00:00:01  21.5 °C"), "\(text)")
        #expect(text.output.contains("40.5 %RH  812 ppm CO₂  dew point 9.3 °C"), "\(text)")
        #expect(text.output.contains("Hygro   DC:A6:32:00:00:02  –"), "\(text)")
        let json = try ChildProcessLines.start(Self.blectl, ["--socket", socket, "watch", "--json", "--events", "all"])
        defer { json.stop() }
        #expect(try await json.firstText { _ in true } == event)
        #expect(try await json.firstText { _ in true } == newKind)
        let plain = try ChildProcessLines.start(Self.blectl, ["--socket", socket, "watch", "--events", "all"])
        defer { plain.stop() }
        let shown = try await plain.firstText { _ in true }
        #expect(
            shown.contains(" reading ") && shown.contains("Sensor")
                && shown.contains("21.5 °C  40.5 %RH  (raw \"0868\")  #8"), "\(shown)")
        let unknown = try await plain.firstText { _ in true }
        #expect(unknown.contains("  battery  ") && unknown.contains("Sensor"), "\(unknown)")
    }

    /// No blectld installed here: with one at the system socket, `blectl` reaches it and
    /// prints no hint.
    static let noSystemDaemon = !FileManager.default.fileExists(atPath: ProtocolInfo.defaultSocketPath)

    /// A user's runtime directory of its own, removed after `body`, and a user's bare
    /// environment pointing at it, plus the sanitizers' settings of a make test-asan run (with
    /// LeakSanitizer on by default, blectld would exit 1 on its false reports).
    static func withUserRuntime(_ body: (URL, [String: String]) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "blectl-user-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = ProcessInfo.processInfo.environment.filter { $0.key.hasSuffix("SAN_OPTIONS") }.merging([
            "PATH": "\(DaemonFixture.products.path):/usr/bin:/bin", "XDG_RUNTIME_DIR": directory.path,
        ]) { _, new in new }
        try await body(directory, environment)
    }

    @Test(
        "not root: the start hint names a socket under the user's XDG_RUNTIME_DIR",
        .enabled(if: !RootRequirement.isRoot, "as root, the test below runs the hint as nobody"),
        .enabled(if: noSystemDaemon, "blectld is installed here: blectl reaches it and prints no hint"))
    func hintForUser() async throws {
        try await Self.withUserRuntime { directory, environment in
            let result = try await run(Self.blectl, ["status"], environment: environment)
            #expect(result.status == 69)
            #expect(
                result.errors.contains("blectld --mock --socket \(directory.path)/blectld.sock"), "\(result.errors)")
        }
    }

    @Test(
        "as a user who is not root (nobody), the start hint's commands work as typed",
        .enabled(if: RootRequirement.testRuns, "needs root to run blectl as nobody"),
        .enabled(if: noSystemDaemon, "blectld is installed here: blectl reaches it and prints no hint"))
    func hintWorksForUser() async throws {
        try RootRequirement.check("to run blectl as nobody")
        try #require(FileManager.default.isExecutableFile(atPath: NobodyUser.setpriv), "util-linux's setpriv")
        try await Self.withUserRuntime { directory, environment in
            try await Self.runHintAsNobody(directory, environment)
        }
    }

    /// Runs the hint's two commands as nobody: blectld starts, and blectl's status reaches it.
    static func runHintAsNobody(_ directory: URL, _ environment: [String: String]) async throws {
        chown(directory.path, NobodyUser.id, NobodyUser.id)
        let refused = try await run(
            NobodyUser.setpriv, NobodyUser.command(["blectl", "status"]), environment: environment)
        #expect(refused.status == 69)
        let hint = refused.errors.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let start = try #require(hint.first { $0.hasPrefix("blectld --mock") }, "\(refused.errors)")
        let status = try #require(hint.first { $0.hasPrefix("blectl --socket") })
        #expect(start.contains(directory.path), "the socket is under the user's XDG_RUNTIME_DIR")
        let daemonWords = start.replacing(" &", with: "").split(separator: " ").map(String.init)
        let daemon = try ChildProcess.start(
            NobodyUser.setpriv, NobodyUser.command(daemonWords), environment: environment,
            logFile: FileManager.default.temporaryDirectory.appendingPathComponent("blectl-user-\(UUID()).log"))
        do {
            let statusWords = status.split(separator: " ").map(String.init)
            try await withTimeout(.seconds(20)) {
                while try await run(NobodyUser.setpriv, NobodyUser.command(statusWords), environment: environment)
                    .status != 0
                {
                    guard daemon.isRunning else { throw TestSupportError("blectld exited: \(daemon.log())") }
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
        } catch {
            await daemon.stop()
            throw error
        }
        await daemon.stop()
        #expect(daemon.exitStatus == 0)
    }
}

/// Running a command as `nobody` (uid and gid 65534), for what a user who is not root sees.
enum NobodyUser {
    static let setpriv = "/usr/bin/setpriv"
    static let id: UInt32 = 65534

    /// setpriv's arguments that run `command` (looked up in PATH) as nobody.
    static func command(_ command: [String]) -> [String] {
        ["--reuid=\(id)", "--regid=\(id)", "--clear-groups", "--"] + command
    }
}
