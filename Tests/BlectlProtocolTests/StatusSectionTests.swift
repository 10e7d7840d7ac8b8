import BlectlProtocol
import SensorModel
import TestSupport
import Testing

@Suite("status: sections")
struct StatusSectionTests {
    @Test("every known section goes through the wire and reads back as its type")
    func knownSections() throws {
        let status = StatusSectionSamples.status
        let line = try JSONLines.encode(status)
        let decoded = try JSONLines.decode(StatusResult.self, from: line)
        #expect(decoded == status)
        #expect(try JSONLines.encode(decoded) == line)
        typealias Samples = StatusSectionSamples
        #expect(decoded.section(HistoryStatus.self) == Samples.history)
        #expect(decoded.section(MQTTStatus.self) == Samples.mqtt)
        #expect(decoded.section(SocketStatus.self) == Samples.socket)
        #expect(decoded.section(AdvertisementStatus.self) == Samples.advertisements)
        #expect(decoded.section(ScanWatchdogStatus.self) == Samples.scanWatchdog)
        #expect(decoded.section([SensorMemoryStatus].self) == Samples.sensorMemory)
        #expect(decoded.section([CalibrationOffset].self) == Samples.calibration)
        #expect(decoded.section([AdapterStatus].self) == Samples.adapters)
        #expect(decoded.section(MissingAdapters.self) == Samples.missingAdapters)
        #expect(Set(decoded.sections.keys) == Set(StatusResult.nullWhenOff))
    }

    @Test("an unknown section passes through: kept as JSON, written back under its name, readable by its type")
    func unknownSection() throws {
        var status = ProtocolSamples.status
        status.setSection(ExampleStatus.sample)
        let text = try JSONLines.encodeString(status)
        #expect(text.contains(ExampleStatus.sampleJSON), "\(text)")
        // A client without the type: the section is JSON, and goes out as it came.
        let decoded = try JSONLines.decode(StatusResult.self, from: Array(text.utf8))
        #expect(decoded == status)
        #expect(try JSONLines.encodeString(decoded) == text)
        guard case .object(let members) = decoded.sections["example"] else {
            Issue.record("example is \(String(describing: decoded.sections["example"]))")
            return
        }
        #expect(members["queued"] == .number("3") && members["healthy"] == .bool(true))
        #expect(decoded.section(ExampleStatus.self) == ExampleStatus.sample)
        // The rest of the status is as before the section.
        var without = decoded
        without.setSection(ExampleStatus?.none)
        #expect(without == ProtocolSamples.status)
        #expect(try JSONLines.encodeString(without) == JSONLines.encodeString(ProtocolSamples.status))
    }

    @Test("sections of version 1 are null while off, later ones absent; null reads as absent")
    func absentSections() throws {
        let empty = StatusResult(
            adapter: nil, state: .unknown, connected: [], lastSeq: 0, started: ProtocolSamples.time)
        let text = try JSONLines.encodeString(empty)
        for name in StatusResult.nullWhenOff { #expect(text.contains("\"\(name)\":null"), "\(name)") }
        #expect(!text.contains("example"))
        #expect(try !JSONLines.encodeString(empty, absent: .omitted).contains("null"))
        let line = text.replacing("\"connected\":[]", with: "\"connected\":[],\"example\":null")
        let decoded = try JSONLines.decode(StatusResult.self, from: Array(line.utf8))
        #expect(decoded.sections.isEmpty && decoded == empty)
    }

    @Test("a section of another shape than the type reads as nil; one with no JSON form is left out")
    func unreadable() throws {
        var status = ProtocolSamples.status
        status.setSection(named: "history", .string("not a store"))
        #expect(status.section(HistoryStatus.self) == nil)
        #expect(status.sections["history"] == .string("not a store"))
        status.setSection(named: "history", .null)
        #expect(status.sections["history"] == nil)
        status.setSection(ScanWatchdogStatus(periodSeconds: .nan, adapterReset: false))
        #expect(status.sections["scan_watchdog"] == nil)
        #expect(try JSONLines.encodeString(status).contains("\"scan_watchdog\":null"))
    }
}
