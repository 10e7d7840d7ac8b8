import Testing
import UnixSupport

@Suite("Command-line parsing")
struct ArgvParserTests {
    let parser = ArgvParser(
        globals: [.value("socket", "PATH", help: ""), .flag("json", help: ""), .flag("help", short: "h", help: "")],
        verbs: [
            VerbSpec("read", options: [.value("timeout", "S", help: "")], positionals: 0...1, help: ""),
            VerbSpec("scan", options: [.flag("all", help: ""), .repeated("name", "N", help: "")], help: ""),
        ])

    @Test("Globals are accepted before and after the verb, in both value spellings")
    func globalsAnywhere() throws {
        let before = try parser.parse(["--socket", "/a", "--json", "read", "Thermometer", "--timeout=3"])
        let after = try parser.parse(["read", "--timeout", "3", "Thermometer", "--socket=/a", "--json"])
        for parsed in [before, after] {
            #expect(parsed.verb == "read")
            #expect(parsed.positionals == ["Thermometer"])
            #expect(parsed.value("socket") == "/a")
            #expect(parsed.value("timeout") == "3")
            #expect(parsed.flag("json"))
        }
    }

    @Test("Repeated options keep every value; single ones keep the last")
    func repeated() throws {
        let parsed = try parser.parse(["scan", "--name", "A", "--name=B", "--socket", "/1", "--socket", "/2", "--all"])
        #expect(parsed.values("name") == ["A", "B"])
        #expect(parsed.value("socket") == "/2")
        #expect(parsed.flag("all"))
    }

    @Test("Short flags and -- work")
    func shortAndDashes() throws {
        #expect(try parser.parse(["-h"]).flag("help"))
        #expect(try parser.parse(["read", "--", "--odd-name"]).positionals == ["--odd-name"])
        #expect(try parser.parse([]).verb == nil)
    }

    @Test(
        "Mistakes are usage errors",
        arguments: [
            ["frob"], ["--nope"], ["read", "--all"], ["--timeout", "3", "read"], ["--json=yes", "read"],
            ["read", "--timeout"], ["read", "a", "b"], ["scan", "extra"], ["-x"],
        ])
    func mistakes(arguments: [String]) {
        #expect(throws: UsageError.self) { try parser.parse(arguments) }
    }

    @Test("A parser without verbs takes the configured number of positionals")
    func noVerbs() throws {
        let flat = ArgvParser(globals: [.flag("mock", help: "")])
        #expect(try flat.parse(["--mock"]).flag("mock"))
        #expect(throws: UsageError("unexpected argument 'x'")) { try flat.parse(["x"]) }
    }

    @Test("Help lines align")
    func help() {
        let lines = [OptionSpec.value("socket", "PATH", help: "Socket"), .flag("json", help: "JSON")].helpLines()
        #expect(lines == "  --socket PATH  Socket\n  --json         JSON")
    }
}
