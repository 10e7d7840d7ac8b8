import Foundation
import TestSupport
import Testing

/// The documents' lists of sensor formats (docs/, man/, etc/): regions that `make docs`
/// writes from the registries with blectl-docs, and the hand-written tables that must have a
/// row per format.
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

    @Test("a stale region fails the check, naming make docs; --write mends it")
    func staleRegion() async throws {
        let root = try Self.copy(["docs/protocol.md", "man/blectld.conf.5.scd"])
        defer { try? FileManager.default.removeItem(atPath: root) }
        // Today's regions first, so that this test plants the only stale one.
        #expect(try await Self.docs(["--root", root, "--write"]).status == 0)
        let page = root + "/man/blectld.conf.5.scd"
        let original = try String(contentsOfFile: page, encoding: .utf8)
        // As if a format had been added to the registry after the page was written.
        let planted = original.replacingOccurrences(
            of: "; formats:ids begin\n\t_bthome_, ", with: "; formats:ids begin\n\t")
        #expect(planted != original)
        try planted.write(toFile: page, atomically: true, encoding: .utf8)
        let stale = try await Self.docs(["--root", root, "--check"])
        #expect(stale.status == 1)
        #expect(
            stale.errors.contains("man/blectld.conf.5.scd: region formats:ids is stale: run `make docs`"),
            "\(stale.errors)")
        #expect(!stale.errors.contains("docs/protocol.md"), "\(stale.errors)")
        let write = try await Self.docs(["--root", root, "--write"])
        #expect(write.status == 0, "\(write.errors)")
        #expect(try String(contentsOfFile: page, encoding: .utf8) == original)
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
