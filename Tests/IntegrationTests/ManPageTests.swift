import Foundation
import TestSupport
import Testing

/// The man pages (man/*.scd) against the code: every option, command, configuration key,
/// exit status, signal and environment variable the programs' `--dump-spec` lists is
/// documented, and nothing documented as one is unknown to the code.
@Suite("man pages")
struct ManPageTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../man").standardized.path

    @Test("blectl(1): options, commands and their options, environment, exit statuses")
    func blectl() async throws {
        let spec = try await Self.spec("blectl")
        let page = try ManPage(named: "blectl.1")
        #expect(page.optionHeadings(in: "OPTIONS") == Self.flags(spec["options"]))
        let commands = try #require(spec["commands"] as? [[String: Any]])
        #expect(page.headingWords(in: "COMMANDS") == Set(commands.compactMap { $0["name"] as? String }))
        for command in commands {
            let name = try #require(command["name"] as? String)
            #expect(page.optionHeadings(in: "COMMANDS", under: name) == Self.flags(command["options"]), "\(name)")
        }
        #expect(page.headingWords(in: "ENVIRONMENT") == Self.names(spec["environment"], key: "name"))
        #expect(page.headingWords(in: "EXIT STATUS") == Self.names(spec["exit_statuses"], key: "status"))
        try page.expectSections(["FILES", "EXAMPLES", "SEE ALSO"])
    }

    @Test("blectld(8): options, signals, environment, exit statuses, files")
    func blectld() async throws {
        let spec = try await Self.spec("blectld")
        let page = try ManPage(named: "blectld.8")
        #expect(page.optionHeadings(in: "OPTIONS") == Self.flags(spec["options"]))
        #expect(page.headingWords(in: "SIGNALS") == Self.names(spec["signals"], key: "name"))
        #expect(page.headingWords(in: "ENVIRONMENT") == Self.names(spec["environment"], key: "name"))
        #expect(page.headingWords(in: "EXIT STATUS") == Self.names(spec["exit_statuses"], key: "status"))
        #expect(page.section("FILES").contains("/etc/blectl/blectld.conf"))
        #expect(page.section("FILES").contains("/run/blectl/blectld.sock"))
        try page.expectSections(["SYSTEMD", "EXAMPLES", "SEE ALSO"])
    }

    @Test("blectld.conf(5): every configuration key and per-device key, and no other")
    func configuration() async throws {
        let spec = try await Self.spec("blectld")
        let page = try ManPage(named: "blectld.conf.5")
        #expect(page.headingWords(in: "KEYS") == Self.names(spec["settings"], key: "key"))
        #expect(page.headingWords(in: "PER-DEVICE KEYS") == Self.names(spec["device_settings"], key: "key"))
        try page.expectSections(["SYNTAX", "EXAMPLES", "FILES"])
    }

    @Test("blectl-mock(1): every option, and no other")
    func mock() async throws {
        let spec = try await Self.spec("blectl-mock")
        let page = try ManPage(named: "blectl-mock.1")
        #expect(page.optionHeadings(in: "OPTIONS") == Self.flags(spec["options"]))
        try page.expectSections(["EXIT STATUS", "EXAMPLES", "SEE ALSO"])
    }

    @Test(
        "scdoc renders every page without an error",
        arguments: ["blectl.1", "blectld.8", "blectld.conf.5", "blectl-mock.1"])
    func renders(name: String) async throws {
        let result = try await run("/bin/sh", ["-c", "scdoc < '\(Self.directory)/\(name).scd'"])
        #expect(result.status == 0, "scdoc \(name) (apt-get install scdoc): \(result.errors)")
        #expect(result.output.contains(".TH \"\(name.split(separator: ".").dropLast().joined(separator: "."))\""))
    }

    // MARK: - Helpers

    static func spec(_ program: String) async throws -> [String: Any] {
        let dump = try await run(DaemonFixture.binary(program), ["--dump-spec"])
        #expect(dump.status == 0, "\(program) --dump-spec: \(dump.errors)")
        return try #require(try JSONSerialization.jsonObject(with: Data(dump.output.utf8)) as? [String: Any])
    }

    /// Every spelling of the options in a spec's list: `-h`, `--help`, `--socket`...
    static func flags(_ options: Any?) -> Set<String> {
        Set(
            (options as? [[String: Any]] ?? []).flatMap { option in
                ["--\(option["name"] as? String ?? "?")"] + ((option["short"] as? String).map { ["-\($0)"] } ?? [])
            })
    }

    static func names(_ entries: Any?, key: String) -> Set<String> {
        Set((entries as? [[String: Any]] ?? []).compactMap { entry in entry[key].map { "\($0)" } })
    }
}

/// An scdoc source split into its `# SECTIONS`; a definition is a line starting with `*`
/// (at the top level, or indented by one tab under a command).
struct ManPage {
    let name: String
    let sections: [String: [String]]

    init(named name: String) throws {
        self.name = name
        let text = try String(contentsOfFile: "\(ManPageTests.directory)/\(name).scd", encoding: .utf8)
        var sections: [String: [String]] = [:]
        var current = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("# ") {
                current = String(line.dropFirst(2))
                sections[current] = []
            } else {
                sections[current, default: []].append(String(line))
            }
        }
        self.sections = sections
    }

    func section(_ title: String) -> String {
        (sections[title] ?? []).joined(separator: "\n")
    }

    /// The first bold word of each top-level definition: `*socket* = _PATH_` → `socket`.
    func headingWords(in title: String) -> Set<String> {
        Set(
            (sections[title] ?? []).filter { $0.hasPrefix("*") }.compactMap { line in
                line.dropFirst().split(separator: "*").first.map(String.init)
            })
    }

    /// The options named by definitions: top-level ones, or those nested under `command`'s.
    func optionHeadings(in title: String, under command: String? = nil) -> Set<String> {
        var lines = sections[title] ?? []
        if let command {
            let start = lines.firstIndex { $0.hasPrefix("*\(command)*") }.map { $0 + 1 } ?? lines.endIndex
            let end = lines[start...].firstIndex { $0.hasPrefix("*") } ?? lines.endIndex
            lines = lines[start..<end].filter { $0.hasPrefix("\t*") }.map { String($0.dropFirst()) }
        }
        var found: Set<String> = []
        for line in lines where line.hasPrefix("*-") {
            for part in line.split(separator: "*") where part.hasPrefix("-") && !part.contains(" ") {
                found.insert(String(part))
            }
        }
        return found
    }

    func expectSections(_ titles: [String]) throws {
        for title in titles {
            #expect(!section(title).trimmingCharacters(in: .whitespacesAndNewlines).isEmpty, "\(name): \(title)")
        }
    }
}
