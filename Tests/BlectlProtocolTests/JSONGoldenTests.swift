import BlectlProtocol
import TestSupport
import Testing

/// The protocol's bytes are an interface: clients compare, log and parse them, so the
/// encoder must keep writing exactly what the Foundation-based one wrote.
@Suite("JSON golden output")
struct JSONGoldenTests {
    @Test("Every protocol type encodes to its golden compact line")
    func compact() throws {
        let goldens = Dictionary(uniqueKeysWithValues: ProtocolGoldens.compact.map { ($0.key, $0.value) })
        #expect(goldens.count == ProtocolSamples.all.count)
        for (name, value) in ProtocolSamples.all {
            #expect(try JSONLines.encodeString(value) == goldens[name], "\(name)")
            #expect(try JSONLines.encode(value) == Array(((goldens[name] ?? "") + "\n").utf8), "\(name)")
        }
    }

    @Test("The pretty form keeps its golden layout")
    func pretty() throws {
        let samples = Dictionary(uniqueKeysWithValues: ProtocolSamples.all.map { ($0.0, $0.1) })
        for (name, golden) in ProtocolGoldens.pretty {
            let value = try #require(samples[name], "\(name)")
            #expect(try JSONLines.encodeString(value, pretty: true) == golden, "\(name)")
        }
    }
}
