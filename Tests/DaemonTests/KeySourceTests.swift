@testable import Daemon
import Glibc
import SensorModel
import Testing
import UnixSupport

@Suite("Sensor keys from a key file and systemd credentials, private or refused")
struct KeySourceTests {
    static let bthomeKey = "231d39c1d7cc1ab1aee224cd096db932"
    static let legacyKey = "b853075158487ca39a5b5ea9"
    static let configPath = DaemonConfiguration.defaultConfigPath

    /// Loads with `files` as the file system (path → text, mode).
    static func load(
        _ files: [String: (text: String, mode: UInt32)], environment: [String: String] = [:]
    ) throws(ConfigurationError) -> DaemonConfiguration {
        let invocation = try DaemonConfiguration.load(
            arguments: [], environment: environment, readFile: { files[$0]?.text },
            permissions: { path throws(SystemError) in
                guard let mode = files[path]?.mode else { throw SystemError("stat(\(path))", code: ENOENT) }
                return mode
            })
        guard case .run(let configuration) = invocation else { fatalError("not a run: \(invocation)") }
        return configuration
    }

    static func addresses(_ configuration: DaemonConfiguration) -> [String] {
        configuration.advertisementKeys.keys.map(\.description).sorted()
    }

    @Test("key_file: one 'ADDRESS = HEX' a line, comments and blank lines allowed, 16- or 12-byte keys")
    func keyFile() throws {
        let configuration = try Self.load([
            Self.configPath: ("key_file = /etc/blectl/keys\n", 0o644),
            "/etc/blectl/keys": (
                "# kitchen\nA4:C1:38:00:00:01 = \(Self.bthomeKey)\n\n a4:c1:38:00:00:03 = \(Self.legacyKey)  # old\n",
                0o640
            ),
        ])
        #expect(Self.addresses(configuration) == ["A4:C1:38:00:00:01", "A4:C1:38:00:00:03"])
    }

    @Test("the blectl-keys credential (LoadCredential=) is read when systemd passes one, skipped when absent")
    func credential() throws {
        let directory = "/run/credentials/blectld.service"
        let environment = ["CREDENTIALS_DIRECTORY": directory]
        let configuration = try Self.load(
            [directory + "/blectl-keys": ("A4:C1:38:00:00:01 = \(Self.bthomeKey)\n", 0o400)], environment: environment)
        #expect(Self.addresses(configuration) == ["A4:C1:38:00:00:01"])
        #expect(try Self.load([:], environment: environment).advertisementKeys.isEmpty)
    }

    @Test("a source of keys every user can read is refused (exit 78), naming the file, its mode and the fix")
    func exposed() throws {
        let cases: [[String: (text: String, mode: UInt32)]] = [
            [Self.configPath: ("bthome_key A4:C1:38:00:00:01 = \(Self.bthomeKey)\n", 0o644)],
            [
                Self.configPath: ("key_file = /etc/blectl/keys\n", 0o644),
                "/etc/blectl/keys": ("A4:C1:38:00:00:01 = \(Self.bthomeKey)\n", 0o604),
            ],
        ]
        for files in cases {
            #expect {
                try Self.load(files)
            } throws: { error in
                guard let error = error as? ConfigurationError, case .exposedKeys(let path, _) = error else {
                    return false
                }
                let text = "\(error)"
                return error.exitCode == 78 && text.contains("chmod 640 \(path)") && text.contains("(mode 6")
                    && !text.contains(Self.bthomeKey)
            }
        }
        // A world-readable configuration without keys is as before.
        #expect(try Self.load([Self.configPath: ("alias A4:C1:38:00:00:01 = Shed\n", 0o644)]).hub.aliases.count == 1)
    }

    @Test(
        "bad key files: missing, a line that is not a key, a short key, a second key for a device; no key in a message")
    func badKeyFiles() throws {
        let config = (
            text: "key_file = /etc/blectl/keys\nbthome_key A4:C1:38:00:00:01 = \(Self.bthomeKey)\n", mode: UInt32(0o600)
        )
        let cases: [(String?, String)] = [
            (nil, "No such file"),
            ("\(Self.bthomeKey)\n", "keys:1: expected 'ADDRESS = HEX'"),
            ("A4:C1:38:00:00:02 = 1234abcd\n", "keys:1: A4:C1:38:00:00:02: a sensor key is 32 hex digits"),
            (
                "\nA4:C1:38:00:00:01 = \(Self.legacyKey)\n",
                "keys:2: A4:C1:38:00:00:01: A4:C1:38:00:00:01 has a key already"
            ),
        ]
        for (keys, message) in cases {
            var files = [Self.configPath: config]
            if let keys { files["/etc/blectl/keys"] = (keys, 0o640) }
            #expect {
                try Self.load(files)
            } throws: { error in
                let text = "\(error)"
                return text.contains(message) && !text.contains(Self.bthomeKey) && !text.contains(Self.legacyKey)
            }
        }
    }
}
