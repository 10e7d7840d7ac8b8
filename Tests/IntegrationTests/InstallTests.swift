import Foundation
import TestSupport
import Testing

/// `make install`, as `sudo make install` runs it: it builds nothing and installs what was built.
@Suite("make install")
struct InstallTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../..").standardized.path

    @Test("with PREFIX=/usr: binaries in /usr/bin, units in /lib/systemd/system, the configuration kept")
    func installsWhatWasBuilt() async throws {
        let root = TemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root.path) }
        let built = DaemonFixture.products.path
        let result = try await run(
            "/usr/bin/make",
            [
                "-C", Self.repository, "install", "DESTDIR=\(root.path)", "PREFIX=/usr", "BUILD_DIR=\(built)",
                "SWIFT=false",
            ])
        #expect(result.status == 0, "\(result.errors)")
        for file in [
            "usr/bin/blectld", "usr/bin/blectl", "usr/bin/blectl-mock", "lib/systemd/system/blectld.service",
            "lib/systemd/system/blectld.socket", "etc/blectl/blectld.conf", "usr/share/doc/blectl/README.md",
            "usr/share/man/man1/blectl.1", "usr/share/man/man1/blectl-mock.1", "usr/share/man/man5/blectld.conf.5",
            "usr/share/man/man8/blectld.8", "usr/share/bash-completion/completions/blectl",
            "usr/share/zsh/vendor-completions/_blectld", "usr/share/fish/vendor_completions.d/blectl-mock.fish",
            "usr/lib/sysusers.d/blectl.conf",
        ] {
            #expect(FileManager.default.fileExists(atPath: root.path + "/" + file), "\(file)")
        }
        let unit = try String(contentsOfFile: root.path + "/lib/systemd/system/blectld.service", encoding: .utf8)
        #expect(unit.contains("ExecStart=/usr/bin/blectld --config /etc/blectl/blectld.conf"))
    }

    @Test("with nothing built it says what to run, and fails")
    func nothingBuilt() async throws {
        let root = TemporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: root.path) }
        let result = try await run(
            "/usr/bin/make",
            ["-C", Self.repository, "install", "DESTDIR=\(root.path)", "BUILD_DIR=\(root.path)/none", "SWIFT=false"])
        #expect(result.status != 0)
        #expect(result.errors.contains("run 'make release' first"))
    }
}
