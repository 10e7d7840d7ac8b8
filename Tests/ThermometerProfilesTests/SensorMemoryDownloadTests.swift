import SensorModel
import Testing
import ThermometerProfiles

/// A pvvx record notification: number, time, 21.00 °C, 50.00 %, 3.000 V.
private func record(_ number: UInt16, time: UInt32) -> [UInt8] {
    [0x35, UInt8(number & 0xFF), UInt8(number >> 8)]
        + (0..<4).map { UInt8(truncatingIfNeeded: time >> (8 * $0)) } + [0x34, 0x08, 0x88, 0x13, 0xB8, 0x0B]
}

private let end: [UInt8] = [0x35, 0x00, 0x00]
private let stop = PvvxMemory().stopWrites

@Suite("a sensor-memory download's bookkeeping")
struct SensorMemoryDownloadTests {
    @Test("the newest records, then the sensor's end marker")
    func newest() {
        var download = SensorMemoryDownload(PvvxMemory(), request: .newest(count: 2))
        #expect(download.startWrites.map(\.value) == [[0x35, 0x02, 0x00, 0x00, 0x00]])
        guard case .record(let first) = download.receive(record(1, time: 2000)) else {
            Issue.record("no record")
            return
        }
        #expect(first.deviceTime == 2000)
        #expect(download.receive([0x23, 0, 0, 0, 0]) == .ignored)
        guard case .record = download.receive(record(2, time: 1400)) else {
            Issue.record("no record")
            return
        }
        #expect(download.receive(end) == .finished(.sensorEnded, stopWrites: []))
        #expect(download.received == 2)
        #expect(download.isFinished)
        #expect(download.receive(record(3, time: 800)) == .ignored)
    }

    @Test("more records than asked for end the download and stop the sensor")
    func moreThanAsked() {
        var download = SensorMemoryDownload(PvvxMemory(), request: .newest(count: 1))
        _ = download.receive(record(1, time: 2000))
        #expect(download.receive(record(2, time: 1400)) == .finished(.limitReached, stopWrites: stop))
        #expect(download.received == 1)
    }

    @Test("by time: stops at the first record not newer, and asks the sensor to stop")
    func byTime() {
        var download = SensorMemoryDownload(PvvxMemory(), request: .newer(than: 1400))
        guard case .record = download.receive(record(1, time: 2000)) else {
            Issue.record("no record")
            return
        }
        #expect(download.receive(record(2, time: 1400)) == .finished(.reachedOlderRecords, stopWrites: stop))
        #expect(download.received == 1)
    }

    @Test("a corrupt record is refused and the download goes on")
    func corrupt() {
        var download = SensorMemoryDownload(PvvxMemory(), request: .newest(count: 3))
        _ = download.receive(record(1, time: 2000))
        guard case .rejected(let error) = download.receive([0x35, 0x02, 0x00] + Array(repeating: 0xFF, count: 10))
        else {
            Issue.record("not refused")
            return
        }
        #expect(error.kind == .erasedRecord)
        guard case .record = download.receive(record(3, time: 800)) else {
            Issue.record("no record after the corrupt one")
            return
        }
        #expect(download.received == 2)
    }

    @Test("the same record twice, or one stamped after the sensor's clock, is refused")
    func impossibleRecords() {
        var download = SensorMemoryDownload(PvvxMemory(), request: .newest(count: 5), sensorTime: 10_000)
        _ = download.receive(record(1, time: 9_000))
        #expect(kind(download.receive(record(1, time: 9_000))) == .unexpectedRecord)
        #expect(kind(download.receive(record(2, time: 10_000 + 121))) == .impossibleTime)
        guard case .record = download.receive(record(3, time: 10_000 + 120)) else {
            Issue.record("a record within the slack is refused")
            return
        }
        #expect(download.received == 2)
    }

    @Test("nothing to ask: finished before it starts")
    func nothing() {
        let download = SensorMemoryDownload(PvvxMemory(), request: .newest(count: 0))
        #expect(download.startWrites.isEmpty)
        #expect(download.end == .limitReached)
    }

    @Test("the drift is the sensor's time minus the gateway's")
    func drift() {
        #expect(SensorClockReading(deviceTime: 1000).drift(from: 1300) == -300)
        #expect(SensorClockReading(deviceTime: 0xFFFF_FFF0).drift(from: 0) == 0xFFFF_FFF0)
    }

    private func kind(_ step: SensorMemoryDownload.Step) -> SensorMemoryError.Kind? {
        if case .rejected(let error) = step { return error.kind }
        return nil
    }
}
