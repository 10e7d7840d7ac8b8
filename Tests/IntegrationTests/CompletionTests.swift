import Foundation
import TestSupport
import Testing

/// The shell completions (completions/): generated from the programs' `--dump-spec`, and
/// what bash offers for a few command lines, device names from a running blectld included.
@Suite("shell completions")
struct CompletionTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../..").standardized.path

    @Test("completions/ is what generate.py makes from today's --dump-spec")
    func upToDate() async throws {
        let result = try await run(
            "/usr/bin/python3",
            ["\(Self.repository)/completions/generate.py", "--bin-dir", DaemonFixture.products.path, "--check"])
        #expect(result.status == 0, "\(result.errors)")
    }

    @Test("bash: 'blectl re<Tab>' completes the command")
    func bashCommand() async throws {
        #expect(try await Self.bash(["blectl", "re"]) == ["read"])
        #expect(
            try await Self.bash(["blectl", "--json", ""]) == [
                "status", "scan", "read", "history", "memory", "watch", "help",
            ])
    }

    @Test("bash: 'blectl read --<Tab>' offers read's options and the global ones")
    func bashOptions() async throws {
        let offered = try await Self.bash(["blectl", "read", "--"])
        #expect(Set(offered) == ["--timeout", "--socket", "--json", "--unit", "--help", "--version"])
        #expect(try await Self.bash(["blectl", "scan", "--a"]) == ["--all"])
        #expect(try await Self.bash(["blectl", "--unit", ""]) == ["C", "F"])
        #expect(try await Self.bash(["blectl", "watch", "--events", "reading,conn"]) == ["reading,connected"])
        #expect(try await Self.bash(["blectld", "--log-"]) == ["--log-level"])
    }

    @Test("bash: 'blectl read <Tab>' offers the names and addresses a running blectld knows")
    func bashDevices() async throws {
        try await DaemonFixture.with { daemon in
            let offered = await eventually {
                let offered = (try? await Self.bash(["blectl", "--socket", daemon.socket, "read", ""])) ?? []
                return Set(offered) == ["Thermometer", "DC:A6:32:00:00:01", "DC:A6:32:00:00:02"]
            }
            #expect(offered, "the mock's thermometers are offered once connected")
            let addresses = try await Self.bash(["blectl", "--socket", daemon.socket, "read", "DC:A6:32:00:00:0"])
            #expect(addresses == ["DC:A6:32:00:00:01", "DC:A6:32:00:00:02"])
        }
        // No daemon: nothing, and quickly.
        #expect(try await Self.bash(["blectl", "--socket", "/nonexistent/blectld.sock", "read", ""]).isEmpty)
    }

    @Test(
        "zsh and fish load their completions",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/zsh")
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/fish")))
    func zshAndFish() async throws {
        for program in ["blectl", "blectld", "blectl-mock"] {
            let zsh = try await run("/usr/bin/zsh", ["-n", "\(Self.repository)/completions/zsh/_\(program)"])
            #expect(zsh.status == 0, "\(program): \(zsh.errors)")
        }
        let fish = try await run(
            "/usr/bin/fish",
            ["--no-config", "-c", "source \(Self.repository)/completions/fish/blectl.fish; complete -C 'blectl re'"])
        #expect(fish.output.hasPrefix("read\t"), "\(fish.output) \(fish.errors)")
    }

    /// What bash's completion function offers for `words`, the last being completed.
    static func bash(_ words: [String]) async throws -> [String] {
        let program = words[0]
        let quoted = words.map { "'\($0)'" }.joined(separator: " ")
        let script = """
            PATH='\(DaemonFixture.products.path)':$PATH
            source '\(repository)/completions/bash/\(program)'
            COMP_WORDS=(\(quoted)); COMP_CWORD=\(words.count - 1)
            \(program == "blectl-mock" ? "_blectl_mock" : "_\(program)")
            printf '%s\\n' "${COMPREPLY[@]}"
            """
        let result = try await run("/bin/bash", ["--norc", "-c", script])
        #expect(result.status == 0, "\(result.errors)")
        return result.output.split(separator: "\n").map(String.init)
    }
}
