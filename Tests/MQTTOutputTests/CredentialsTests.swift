import Glibc
import TestSupport
import Testing

@testable import MQTTOutput

@Suite("MQTT credentials at start")
struct CredentialsTests {
    static func configuration(_ url: String, passwordFile: String? = "/etc/blectl/mqtt.password")
        throws -> MQTTOutput.Configuration
    {
        var configuration = MQTTOutput.Configuration(broker: try BrokerURL(parsing: url), gateway: "pi")
        configuration.username = "blectl"
        configuration.passwordFile = passwordFile
        return configuration
    }

    @Test("a password file readable or writable by others is refused, naming the file and the mode to set")
    func modes() throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("password")
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(fd >= 0)
        _ = write(fd, "s3cret\n", 7)
        close(fd)
        for (mode, accepted) in [(0o600, true), (0o640, true), (0o660, true), (0o644, false), (0o602, false)] {
            #expect(chmod(path, mode_t(mode)) == 0)
            let configuration = try Self.configuration("mqtts://broker", passwordFile: path)
            if accepted {
                #expect(try Credentials.password(configuration) == "s3cret", "mode \(String(mode, radix: 8))")
            } else {
                let error = #expect(throws: MQTTConfigurationError.self) { try Credentials.password(configuration) }
                let text = error?.description ?? ""
                #expect(text.contains(path) && text.contains("chmod 600 \(path)"), "\(text)")
                #expect(text.contains("mode 0\(String(mode, radix: 8))"), "\(text)")
            }
        }
    }

    @Test("a password over plain mqtt:// to another host is warned about; loopback and mqtts:// are not")
    func plaintext() throws {
        for url in ["mqtt://broker.lan", "mqtt://192.168.1.10:1883", "mqtt://[2001:db8::1]", "mqtt://128.0.0.1"] {
            let warning = Credentials.plaintextWarning(try Self.configuration(url))
            #expect(warning?.contains("mqtts://") == true, "\(url)")
        }
        for url in [
            "mqtt://localhost", "mqtt://127.0.0.1", "mqtt://127.1.2.3:1884", "mqtt://[::1]",
            "mqtt://[::ffff:127.0.0.1]",
            "mqtts://broker.lan",
        ] {
            #expect(Credentials.plaintextWarning(try Self.configuration(url)) == nil, "\(url)")
        }
        #expect(Credentials.plaintextWarning(try Self.configuration("mqtt://broker.lan", passwordFile: nil)) == nil)
    }
}
