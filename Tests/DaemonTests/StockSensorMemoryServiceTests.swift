import MockBlueZ
import SensorModel
import TestSupport
import Testing

extension SensorMemoryServiceTests.Sensor {
    /// A LYWSD03MMC on Xiaomi's stock firmware with 12 hourly records, its clock 5 minutes
    /// behind; the history's newest live reading of it just before its record of 5 hours ago.
    static let stock = Self(
        address: BluetoothAddress("A4:C1:38:EF:00:01"), profile: "mibeacon",
        add: { scenario in
            var memory = MockSensorMemory.xiaomiStock
            memory.preloaded = 12
            memory.clockDrift = -300
            memory.pace = .milliseconds(2)
            scenario.addStockMemorySensors(1, memory: memory, interval: .milliseconds(300))
        }, drift: -300, storedBefore: 5 * 3600)

    /// The same on a LYWSD02: records in 0.01 °C, a 5-byte clock.
    static let lywsd02 = Self(
        address: BluetoothAddress("A4:C1:38:EF:00:01"), profile: "mibeacon",
        add: { scenario in
            var memory = MockSensorMemory.xiaomiStock
            memory.firmware = .xiaomiStockLYWSD02
            memory.preloaded = 12
            memory.clockDrift = -300
            memory.pace = .milliseconds(2)
            scenario.addStockMemorySensors(1, memory: memory, interval: .milliseconds(300))
        }, drift: -300, storedBefore: 5 * 3600)
}

/// Gaps filled from a stock-firmware sensor's hourly records (docs/sensor-memory.md, "Xiaomi
/// stock firmware"), found by the scheduler from the history, through the hub into the store.
@Suite(.serialized) struct StockSensorMemoryServiceTests {
    typealias World = SensorMemoryServiceTests.World

    /// The gateway times of the records newer than the seeded reading, newest first: the
    /// reading is half a second before the record of 5 hours ago, which is on a whole minute
    /// (the sensor's hour), so in the minute before: that record is stored too.
    static func expected(_ world: World) async throws -> [Int64] {
        let address = world.sensor.address.description
        let newest = Int64(try await world.mock.sensorMemory(address: address).newestRecordTime!)
        return (0...5).map { (newest - world.sensor.drift - Int64($0) * 3600) * 1000 }
    }

    static func check(_ world: World) async throws {
        let readings = await SensorMemoryServiceTests.readings(world, from: world.seeded - 60_000)
        SensorMemoryServiceTests.checkOnePerMinute(readings)
        let memory = readings.filter { $0.source == .memory }
        let expected = try await expected(world)
        #expect(memory.count == expected.count, "\(memory.map(\.time))")
        for time in expected {
            #expect(memory.contains { abs($0.time.millisecondsSince1970 - time) <= 2000 }, "no record at \(time)")
        }
        #expect(memory.allSatisfy { $0.measurement.profile == "mibeacon" && $0.seq > 10 })
    }

    @Test func aGapIsFilledFromTheHourlyRecordsAtTheSensorsHours() async throws {
        try await SensorMemoryServiceTests.withWorld(sensor: .stock) { world in
            let status = await SensorMemoryServiceTests.downloads(1, world)
            #expect(status?.lastResult == "finished", "\(String(describing: status))")
            #expect(abs((status?.clockDriftSeconds ?? 0) + 300) <= 2)
            #expect(status?.stored == 6 && status?.duplicates == 0 && status?.rejected == 0)
            try await Self.check(world)
        }
    }

    @Test func aLYWSD02sRecordsAreReadInHundredthsOfADegree() async throws {
        try await SensorMemoryServiceTests.withWorld(sensor: .lywsd02) { world in
            let status = await SensorMemoryServiceTests.downloads(1, world)
            #expect(status?.lastResult == "finished", "\(String(describing: status))")
            #expect(abs((status?.clockDriftSeconds ?? 0) + 300) <= 2)
            #expect(status?.stored == 6 && status?.rejected == 0, "\(String(describing: status))")
            try await Self.check(world)
            // The mock's walk stays in a room's range: tenths would read ten times as much.
            let memory = await SensorMemoryServiceTests.readings(world, from: world.seeded - 60_000)
                .filter { $0.source == .memory }
            #expect(memory.allSatisfy { (10...40).contains($0.measurement.celsius ?? 0) }, "\(memory)")
        }
    }

    /// Found on real BlueZ (e2e scenario 10s): once a download had set the clock, a later one
    /// placed the records stamped before the setting at their stamps, as if the clock had
    /// always been right, and stored them a second time, minutes off.
    @Test func recordsStampedBeforeTheClockWasSetKeepTheirTimesAndAreNotStoredTwice() async throws {
        try await SensorMemoryServiceTests.withWorld(sensor: .stock, clockSynchronized: true) { world in
            let newest = Int64(
                try await world.mock.sensorMemory(address: world.sensor.address.description).newestRecordTime!)
            let first = await SensorMemoryServiceTests.downloads(1, world)
            #expect(first?.clockResult == "set" && first?.stored == 6, "\(String(describing: first))")
            // The whole look-back: the six records older than the gap, then nothing new.
            let again = try await world.service.downloadNow(world.sensor.address)
            #expect(abs(again.clockDriftSeconds ?? 99) <= 2, "\(again)")
            #expect(again.stored == 6 && again.duplicates == 6, "\(again)")
            let third = try await world.service.downloadNow(world.sensor.address)
            #expect(third.stored == 0 && third.duplicates == 12, "\(third)")
            let readings = await SensorMemoryServiceTests.readings(world, from: 0)
            SensorMemoryServiceTests.checkOnePerMinute(readings)
            let memory = readings.filter { $0.source == .memory }.map { $0.time.millisecondsSince1970 / 1000 }
            let made = (0..<12).map { newest - world.sensor.drift - Int64($0) * 3600 }
            #expect(memory.count == 12, "\(memory)")
            for time in made {
                #expect(memory.contains { abs($0 - time) <= 2 }, "no record at \(time): \(memory)")
            }
        }
    }

    @Test func anInterruptedDownloadResumesAfterTheLastRecordReceived() async throws {
        try await SensorMemoryServiceTests.withWorld(
            fault: .disconnectDuringDownload(afterRecords: 3), sensor: .stock
        ) { world in
            let first = await SensorMemoryServiceTests.downloads(1, world)
            #expect(first?.lastResult == "disconnected")
            // The record before the gap passed over, two stored.
            #expect(first?.stored == 2 && first?.duplicates == 0, "\(String(describing: first))")
            let second = await SensorMemoryServiceTests.downloads(2, world)
            #expect(second?.lastResult == "finished")
            // Resumed from the index after the last record received: nothing sent again.
            #expect(second?.stored == 4 && second?.duplicates == 0, "\(String(describing: second))")
            try await Self.check(world)
        }
    }

    @Test func anErasedRecordIsRejectedAndTheRestStored() async throws {
        try await SensorMemoryServiceTests.withWorld(fault: .corruptRecord(number: 3), sensor: .stock) { world in
            let status = await SensorMemoryServiceTests.downloads(1, world)
            #expect(status?.lastResult == "finished")
            #expect(status?.rejected == 1 && status?.stored == 5, "\(String(describing: status))")
        }
    }
}
