import DBusCore
import Glibc
import MockBlueZ
import TestSupport
import Testing
import ThermometerProfiles

/// The memory sensor's address, path and command characteristic.
private enum Memory {
    static let address = "A4:C1:38:EE:00:01"
    static let path: ObjectPath = "/org/bluez/hci0/dev_A4_C1_38_EE_00_01"
    static let pvvx = PvvxMemory()

    /// A scenario with one memory sensor whose clock is an hour behind.
    static func scenario(preloaded: Int = 5, interval: Duration = .seconds(60)) -> MockScenario {
        var scenario = MockScenario.standard(thermometers: 0, others: 0)
        scenario.timings = .fast
        var memory = MockSensorMemory()
        memory.interval = interval
        memory.preloaded = preloaded
        memory.clockDrift = -3600
        memory.pace = .milliseconds(1)
        scenario.addMemorySensors(1, memory: memory)
        return scenario
    }

    static func unixNow() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec)
    }
}

extension MockFixture {
    /// Discovers and connects the memory sensor, subscribes to 0x1F1F; returns its path.
    fileprivate func connectMemorySensor() async throws -> ObjectPath {
        try await discover(Memory.path)
        try await connect(Memory.path)
        let objects = try await managedObjects()
        let uuid = "00001f1f-0000-1000-8000-00805f9b34fb"
        guard
            let characteristic = objects.first(where: {
                $0.key.rawValue.hasPrefix(Memory.path.rawValue)
                    && $0.value[Iface.characteristic]?["UUID"] == .string(uuid)
            })?.key
        else { throw TestSupportError("no 0x1F1F under \(Memory.path)") }
        try await call(characteristic, Iface.characteristic, "StartNotify")
        return characteristic
    }

    /// Writes `writes` as a central does (a command unless the write asks for a response).
    fileprivate func send(_ writes: [MemoryWrite], to characteristic: ObjectPath) async throws {
        for write in writes {
            try await call(
                characteristic, Iface.characteristic, "WriteValue",
                [.bytes(write.value), .propertyMap([("type", .string(write.withResponse ? "request" : "command"))])])
        }
    }

    /// The values notified on `characteristic` after `mark`.
    fileprivate func notified(_ characteristic: ObjectPath, after mark: Int) -> [[UInt8]] {
        signals.since(mark).filter { $0.path == characteristic }.compactMap { bytes($0.changedValue("Value")) }
    }

    /// Waits for the next value notified on `characteristic` after `mark`.
    fileprivate func nextValue(_ characteristic: ObjectPath, after mark: Int) async throws -> [UInt8] {
        let (_, signal) = try await signals.wait(after: mark, "a value of \(characteristic)") {
            $0.path == characteristic && $0.changedValue("Value") != nil
        }
        return bytes(signal.changedValue("Value")) ?? []
    }

    /// Runs a download of `request` to its end; returns what each notification did.
    fileprivate func download(
        _ request: MemoryRequest, from characteristic: ObjectPath, sensorTime: UInt32? = nil
    ) async throws -> [SensorMemoryDownload.Step] {
        var download = SensorMemoryDownload(Memory.pvvx, request: request, sensorTime: sensorTime)
        let mark = signals.count
        try await send(download.startWrites, to: characteristic)
        try await signals.wait(after: mark, "the end of the download") {
            $0.path == characteristic && bytes($0.changedValue("Value")) == [0x35, 0x00, 0x00]
        }
        return notified(characteristic, after: mark).map { download.receive($0) }
    }
}

private func records(_ steps: [SensorMemoryDownload.Step]) -> [SensorMemoryRecord] {
    steps.compactMap { if case .record(let record) = $0 { record } else { nil } }
}

@Suite("A memory sensor: a pvvx sensor's clock and memory over GATT")
struct MemorySensorTests {
    @Test("it records while nobody scans or connects, and serves its memory newest first, then the end")
    func download() async throws {
        try await MockFixture.with(Memory.scenario(preloaded: 5)) { f in
            let before = try await f.mock.sensorMemory(address: Memory.address)
            #expect(before.records == 5)
            // The clock runs an hour behind the gateway's.
            #expect(abs(Int64(before.sensorTime) - (Memory.unixNow() - 3600)) <= 2)
            let characteristic = try await f.connectMemorySensor()
            let steps = try await f.download(.newest(count: 3), from: characteristic, sensorTime: before.sensorTime)
            let got = records(steps)
            #expect(got.map(\.number) == [1, 2, 3])
            #expect(got.map(\.deviceTime) == [0, 60, 120].map { before.newestRecordTime! - $0 })
            #expect(got.allSatisfy { $0.measurement.profile == "pvvx" && $0.measurement.celsius != nil })
            #expect(steps.last == .finished(.sensorEnded, stopWrites: []))
            // Asking for more than there is: all five, then the end.
            #expect(records(try await f.download(.newest(count: 100), from: characteristic)).count == 5)
        }
    }

    @Test("a download by time ends at the first record it already has")
    func byTime() async throws {
        try await MockFixture.with(Memory.scenario(preloaded: 5)) { f in
            let status = try await f.mock.sensorMemory(address: Memory.address)
            let characteristic = try await f.connectMemorySensor()
            var download = SensorMemoryDownload(Memory.pvvx, request: .newer(than: status.newestRecordTime! - 120))
            let mark = f.signals.count
            try await f.send(download.startWrites, to: characteristic)
            var got: [SensorMemoryRecord] = []
            var seen = mark
            while !download.isFinished {
                let (index, signal) = try await f.signals.wait(after: seen, "a record") { $0.path == characteristic }
                seen = index + 1
                switch download.receive(bytes(signal.changedValue("Value")) ?? []) {
                case .record(let record): got.append(record)
                case .finished(let end, let stop):
                    #expect(end == .reachedOlderRecords)
                    try await f.send(stop, to: characteristic)
                default: break
                }
            }
            #expect(got.map(\.number) == [1, 2])
        }
    }

    @Test("the clock: read, set, and a refused write (an error for a request, silence for a command)")
    func clock() async throws {
        try await MockFixture.with(Memory.scenario()) { f in
            let characteristic = try await f.connectMemorySensor()
            var mark = f.signals.count
            try await f.send(Memory.pvvx.readClockWrites, to: characteristic)
            guard case .clock(let reading) = try Memory.pvvx.parse(try await f.nextValue(characteristic, after: mark))
            else { throw TestSupportError("no clock answer") }
            // Within 2 s (the answer's trip, longer under a sanitizer's load: scaled).
            #expect(Double(abs(reading.drift(from: Memory.unixNow()) + 3600)) <= 2 * testTimeScale)
            #expect(reading.lastSetTime == 0)

            mark = f.signals.count
            try await f.send(Memory.pvvx.setClockWrites(to: 1_800_000_000), to: characteristic)
            guard case .clock(let set) = try Memory.pvvx.parse(try await f.nextValue(characteristic, after: mark))
            else { throw TestSupportError("no clock answer") }
            #expect(set.lastSetTime == 1_800_000_000)
            #expect(set.deviceTime >= 1_800_000_000 && set.deviceTime <= 1_800_000_002)

            // Through the control interface, as blectl-mock's users arm it.
            _ = try await f.client.call(
                destination: "org.blectl.Mock", path: "/org/blectl/Mock", interface: "org.blectl.Mock1",
                member: "InjectFault",
                arguments: [
                    .string("clock-refuse"),
                    .propertyMap([("address", .string(Memory.address)), ("count", .int32(2))]),
                ])
            var write = Memory.pvvx.setClockWrites(to: 1_900_000_000)[0]
            write.withResponse = true
            await expectError("org.bluez.Error.NotPermitted", message: "Not paired") {
                try await f.send([write], to: characteristic)
            }
            mark = f.signals.count
            try await f.send(Memory.pvvx.setClockWrites(to: 1_900_000_000), to: characteristic)
            try await f.send(Memory.pvvx.readClockWrites, to: characteristic)
            guard case .clock(let after) = try Memory.pvvx.parse(try await f.nextValue(characteristic, after: mark))
            else { throw TestSupportError("no clock answer") }
            #expect(after.deviceTime < 1_900_000_000)
            #expect(f.notified(characteristic, after: mark).count == 1)
        }
    }

    @Test("faults: a download cut by a disconnect, then a corrupt record refused among good ones")
    func downloadFaults() async throws {
        try await MockFixture.with(Memory.scenario(preloaded: 5)) { f in
            let characteristic = try await f.connectMemorySensor()
            try await f.mock.inject(.sensorMemory(.disconnectDuringDownload(afterRecords: 2), address: Memory.address))
            let mark = f.signals.count
            try await f.send(Memory.pvvx.requestWrites(for: .newest(count: 5)), to: characteristic)
            try await f.signals.waitChange(after: mark, Memory.path, Iface.device, "Connected")
            #expect(f.notified(characteristic, after: mark).count == 2)

            // The notify session survives the link and comes back with it (BlueZ re-enables it).
            try await f.connect(Memory.path)
            try await f.mock.inject(.sensorMemory(.corruptRecord(number: 2), address: Memory.address))
            let steps = try await f.download(.newest(count: 3, skipping: 2), from: characteristic)
            #expect(records(steps).map(\.number) == [3, 5])
            let rejected = steps.compactMap { if case .rejected(let error) = $0 { error.kind } else { nil } }
            #expect(rejected == [.erasedRecord])
        }
    }

    @Test("a sensor reset drops the link, clears the memory and starts the clock from 1970")
    func reset() async throws {
        try await MockFixture.with(Memory.scenario(preloaded: 5)) { f in
            _ = try await f.connectMemorySensor()
            let mark = f.signals.count
            try await f.mock.inject(.sensorMemory(.reset, address: Memory.address))
            try await f.signals.waitChange(after: mark, Memory.path, Iface.device, "Connected")
            let status = try await f.mock.sensorMemory(address: Memory.address)
            #expect(status.records == 0)
            #expect(status.sensorTime < 60)
            #expect(status.lastSetTime == 0)
        }
    }

    @Test("a counter wrap: the frame counter goes 255, then 0")
    func counterWrap() async throws {
        try await MockFixture.with(Memory.scenario()) { f in
            try await f.mock.inject(.sensorMemory(.counterWrap, address: Memory.address))
            let mark = f.signals.count
            try await f.call(Standard.hci0, Iface.adapter, "StartDiscovery")
            let counter: @Sendable (Recorded) -> UInt8? = { signal in
                guard signal.path == Memory.path || (signal.member == "InterfacesAdded" && signal.object == Memory.path)
                else { return nil }
                let added = signal.addedInterfaces.first { $0.0 == Iface.device }?.1
                let data = signal.changedValue("ServiceData") ?? added?.first { $0.0 == "ServiceData" }?.1
                guard let entry = data?.dictionaryEntries?.first, case .variant(let value) = entry.value,
                    let payload = bytes(value), payload.count == 15
                else { return nil }
                return payload[13]
            }
            let (index, _) = try await f.signals.wait(after: mark, "counter 255") { counter($0) == 255 }
            try await f.signals.wait(after: index, "counter 0") { counter($0) == 0 }
            try await f.call(Standard.hci0, Iface.adapter, "StopDiscovery")
        }
    }

    @Test("the ring: a full memory drops its oldest sector at once")
    func ring() async throws {
        var scenario = MockScenario.standard(thermometers: 0, others: 0)
        var memory = MockSensorMemory()
        memory.sectors = 3
        memory.recordsPerSector = 4
        memory.preloaded = 13
        scenario.addMemorySensors(1, memory: memory)
        #expect(memory.capacity == 11)
        try await withPrivateBus { bus in
            let mock = try await MockBluetoothd.start(address: bus.address, scenario: scenario)
            // 13 written: the third sector filled at 12 and erased the first (4 records).
            #expect(try await mock.sensorMemory(address: Memory.address).records == 9)
            await mock.stop()
        }
    }
}
