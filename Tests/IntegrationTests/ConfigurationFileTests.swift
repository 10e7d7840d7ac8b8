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

    /// The mock's encrypted BTHome sensor and its key.
    static let encryptedSensor = "A4:C1:38:AD:00:02"
    static let encryptedSensorKey = "231d39c1d7cc1ab1aee224cd096db932"

    @Test("keys in a file every user can read: exit 78 naming the file, its mode and the fix, never the key")
    func exposedKeys() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let keys = directory.file("keys")
        try "\(Self.encryptedSensor) = \(Self.encryptedSensorKey)\n".write(
            toFile: keys, atomically: true, encoding: .utf8)
        chmod(keys, 0o644)
        let config = directory.file("blectld.conf")
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = directory.path
        let arguments = ["--mock", "--socket", directory.file("s.sock"), "--config", config]
        for (configuration, exposed) in [
            ("key_file = \(keys)\n", keys),
            ("bthome_key \(Self.encryptedSensor) = \(Self.encryptedSensorKey)\n", config),
        ] {
            try configuration.write(toFile: config, atomically: true, encoding: .utf8)
            chmod(config, 0o644)
            let refused = try await run(DaemonFixture.binary("blectld"), arguments, environment: environment)
            #expect(refused.status == 78, "\(refused.errors)")
            #expect(refused.errors.contains("\(exposed) holds sensor keys and every user can read it (mode 644)"))
            #expect(refused.errors.contains("chmod 640 \(exposed)"), "\(refused.errors)")
            #expect(!refused.errors.contains(Self.encryptedSensorKey))
        }
    }

    @Test("key_file: the mock's encrypted BTHome sensor is read with the key from a private key file")
    func keyFile() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let keys = directory.file("keys")
        try "# the mock's\n\(Self.encryptedSensor) = \(Self.encryptedSensorKey)\n".write(
            toFile: keys, atomically: true, encoding: .utf8)
        chmod(keys, 0o640)
        try await DaemonFixture.with(
            mockOptions: CLITests.advertiserOptions, configuration: "key_file = \(keys)\n"
        ) { fixture in
            let reports = try await CLITests.readAll(fixture, count: 6)
            let sensor = try #require(reports.first { $0["address"] as? String == Self.encryptedSensor })
            #expect(sensor["celsius"] is Double, "\(sensor)")
            #expect(sensor["error"] == nil, "\(sensor)")
        }
    }
}
