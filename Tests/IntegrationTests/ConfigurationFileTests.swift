import Foundation
import TestSupport
import Testing

@Suite("blectld's configuration file")
struct ConfigurationFileTests {
    /// `etc/blectld.conf` with every `# key = value` line uncommented (as a user would).
    static func uncommentedSample() throws -> String {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../etc/blectld.conf").standardized.path
        return try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { line in
            line.wholeMatch(of: /# [a-z_]+ =.*/) != nil ? String(line.dropFirst(2)) : String(line)
        }.joined(separator: "\n")
    }

    @Test("the sample with every line uncommented starts blectld as the defaults do")
    func uncommentedSampleStarts() async throws {
        // The socket given on the command line wins over the sample's /run/blectl path.
        try await DaemonFixture.with(configuration: try Self.uncommentedSample()) { fixture in
            try await fixture.waitForConnected(2)
        }
    }

    @Test("an alias names a device everywhere and finds it in read")
    func alias() async throws {
        try await DaemonFixture.with(configuration: "alias DC:A6:32:00:00:01 = Kitchen\n") { fixture in
            try await fixture.waitForConnected(2)
            let read = try await fixture.blectl(["read", "Kitchen", "--json", "--timeout", "15"])
            #expect(read.status == 0, "\(read.errors)")
            let reports = try #require(
                try JSONSerialization.jsonObject(with: Data(read.output.utf8)) as? [[String: Any]])
            #expect(reports.map { $0["name"] as? String } == ["Kitchen"])
            #expect(reports.map { $0["address"] as? String } == ["DC:A6:32:00:00:01"])
            let status = try await fixture.blectl(["status"])
            #expect(status.output.contains("Kitchen"))
        }
    }
}
