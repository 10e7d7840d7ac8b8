import Foundation
import TestSupport
import Testing

/// The documents' lists of sensor formats and blectld's settings (docs/, man/, etc/): regions
/// that `make docs` writes from the registries and the settings tables with blectl-docs, and
/// the hand-written tables that must have a row per format.
@Suite("generated documents")
struct GeneratedDocsTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../..").standardized.path

    static func docs(_ arguments: [String]) async throws -> (status: Int32, output: String, errors: String) {
        try await run(DaemonFixture.binary("blectl-docs"), arguments)
    }

    @Test("every generated region is what blectl-docs writes today, every format has its hand-written rows")
    func upToDate() async throws {
        let result = try await Self.docs(["--root", Self.repository, "--check"])
        #expect(result.status == 0, "\(result.errors)")
    }

    @Test(
        "a stale region fails the check, naming make docs; --write mends it",
        arguments: [
            // As if a setting had been added to a table after the page was written.
            StalePlant(
                file: "man/blectld.conf.5.scd", region: "settings", of: "\n*mqtt_backlog_max* = _N_\n", with: "\n"),
            // As if a default had changed in the code.
            StalePlant(
                file: "etc/blectld.conf", region: "settings", of: "# history_retention = 30d\n",
                with: "# history_retention = 7d\n"),
            // As if a format had been added to the registry.
            StalePlant(
                file: "docs/protocol.md", region: "ids", of: "<!-- formats:ids begin -->`bthome`, ",
                with: "<!-- formats:ids begin -->"),
        ])
    func staleRegion(_ plant: StalePlant) async throws {
        let files = ["docs/protocol.md", "man/blectld.conf.5.scd", "etc/blectld.conf"]
        let root = try Self.copy(files)
        defer { try? FileManager.default.removeItem(atPath: root) }
        // Today's regions first, so that this test plants the only stale one.
        #expect(try await Self.docs(["--root", root, "--write"]).status == 0)
        let document = root + "/" + plant.file
        let original = try String(contentsOfFile: document, encoding: .utf8)
        let planted = original.replacingOccurrences(of: plant.of, with: plant.with)
        #expect(planted != original)
        try planted.write(toFile: document, atomically: true, encoding: .utf8)
        let stale = try await Self.docs(["--root", root, "--check"])
        #expect(stale.status == 1)
        #expect(
            stale.errors.contains("\(plant.file): region formats:\(plant.region) is stale: run `make docs`"),
            "\(stale.errors)")
        for other in files where other != plant.file { #expect(!stale.errors.contains(other), "\(stale.errors)") }
        let write = try await Self.docs(["--root", root, "--write"])
        #expect(write.status == 0, "\(write.errors)")
        #expect(try String(contentsOfFile: document, encoding: .utf8) == original)
        #expect(try await Self.docs(["--root", root, "--check"]).status == 0)
    }

    @Test("a hand-written table without a format's row fails, and --write does not invent one")
    func missingHandRow() async throws {
        let root = try Self.copy(["docs/advertisements.md"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        let document = root + "/docs/advertisements.md"
        let text = try String(contentsOfFile: document, encoding: .utf8)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("| `qingping` | header of 8") }
        #expect(lines.count < text.split(separator: "\n", omittingEmptySubsequences: false).count)
        try lines.joined(separator: "\n").write(toFile: document, atomically: true, encoding: .utf8)
        for mode in ["--check", "--write"] {
            let result = try await Self.docs(["--root", root, mode])
            #expect(result.status == 1, "\(mode)")
            #expect(
                result.errors.contains("a hand-written table (formats:hand-rows) has no row for qingping"),
                "\(mode): \(result.errors)")
        }
    }

    /// A fresh root holding copies of the repository's `files`, at the same paths.
    static func copy(_ files: [String]) throws -> String {
        let root = TemporaryDirectory().path
        for file in files {
            let target = root + "/" + file
            try FileManager.default.createDirectory(
                atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: repository + "/" + file, toPath: target)
        }
        return root
    }
}

/// A change that makes one generated region stale: `of` replaced `with` in `file`.
struct StalePlant: Sendable, CustomTestStringConvertible {
    let file: String
    let region: String
    let of: String
    let with: String

    var testDescription: String { "\(file) (\(region))" }
}
