import Testing

@testable import MQTTOutput

@Suite("Broker URLs")
struct BrokerURLTests {
    @Test("mqtt:// and mqtts:// with their default ports, IPv6 in brackets")
    func parses() throws {
        #expect(try BrokerURL(parsing: "mqtt://broker.lan") == BrokerURL(host: "broker.lan", port: 1883, tls: false))
        #expect(try BrokerURL(parsing: "mqtts://broker.lan") == BrokerURL(host: "broker.lan", port: 8883, tls: true))
        #expect(try BrokerURL(parsing: "MQTT://10.0.0.2:1884/") == BrokerURL(host: "10.0.0.2", port: 1884, tls: false))
        #expect(try BrokerURL(parsing: "mqtts://[::1]:8884") == BrokerURL(host: "::1", port: 8884, tls: true))
        #expect(try BrokerURL(parsing: "mqtts://[::1]:8884").description == "mqtts://[::1]:8884")
    }

    @Test("Other schemes, paths, credentials and bad ports are refused with a reason")
    func refuses() {
        for (text, words) in [
            ("http://broker", "unknown broker URL"), ("broker:1883", "unknown broker URL"),
            ("mqtt://user:pw@broker", "nothing else"), ("mqtt://broker/topic", "nothing else"),
            ("mqtt://broker:0", "bad port"), ("mqtt://broker:http", "bad port"), ("mqtt://", "nothing else"),
            ("mqtt://:1883", "no host"),
        ] {
            #expect(throws: MQTTConfigurationError.self, "\(text)") { try BrokerURL(parsing: text) }
            do {
                _ = try BrokerURL(parsing: text)
            } catch {
                #expect(error.description.contains(words), "\(text): \(error)")
            }
        }
    }
}
