import BlectlProtocol
import Central
@testable import Daemon
import HistoryStore
import MockBlueZ
import ReadingHub
import SensorModel
import TestSupport
import Testing
import UnixSupport

/// Gaps filled from the mock sensor's memory, through the hub into a real history store.
@Suite(.serialized) struct SensorMemoryServiceTests {
    static let address = "A4:C1:38:EE:00:01"
    static let sensor = BluetoothAddress(address)!
    /// Three years behind: a sensor whose clock was never set right.
    static let drift: Int64 = -3 * 365 * 86400

    /// The memory sensor a world holds: its address, the family it is heard as, how the
    /// scenario gets it, and how long before its newest record the history's newest live
    /// reading of it lies.
    struct Sensor: Sendable {
        var address: BluetoothAddress
        var profile: ProfileID
        var add: @Sendable (inout MockScenario) -> Void
        /// Its clock's drift at the start, seconds.
        var drift: Int64
        var storedBefore: Int64

        /// A pvvx sensor recording every minute for 90 minutes, three years behind; the
        /// history 30 minutes behind it.
        static let pvvx = Sensor(
            address: SensorMemoryServiceTests.sensor, profile: "pvvx",
            add: { scenario in
                var memory = MockSensorMemory()
                memory.interval = .seconds(60)
                memory.preloaded = 90
                memory.clockDrift = SensorMemoryServiceTests.drift
                memory.pace = .milliseconds(2)
                scenario.addMemorySensors(1, memory: memory, interval: .milliseconds(300))
            }, drift: SensorMemoryServiceTests.drift, storedBefore: 30 * 60)
    }

    struct World {
        let sensor: Sensor
        let hub: Hub
        let history: HistoryStore
        let service: SensorMemoryService
        let mock: MockBluetoothd
        /// The newest live reading stored before the start (gateway ms).
        let seeded: Int64
    }

    /// A memory sensor (``Sensor/pvvx`` unless told), a history whose newest live reading of
    /// it is `sensor.storedBefore` older than its newest record, the monitors, the hub and the
    /// service started.
    static func withWorld(
        fault: MockMemoryFault? = nil, sensor: Sensor = .pvvx, clockSynchronized: Bool = false,
        configure: (inout SensorMemorySettings) -> Void = { _ in }, _ body: (World) async throws -> Void
    ) async throws {
        var scenario = MockScenario.standard(thermometers: 0, others: 0)
        scenario.timings = .fast
        sensor.add(&scenario)
        let address = sensor.address.description
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try await withPrivateBus { bus in
            let mock = try await MockBluetoothd.start(address: bus.address, scenario: scenario)
            let status = try await mock.sensorMemory(address: address)
            let drift = sensor.drift
            // Just before the record that old, so that its minute has a live reading.
            let seeded = (Int64(status.newestRecordTime!) - drift - sensor.storedBefore) * 1000 - 500
            let log = Log(level: .warning)
            let history = try HistoryStore.open(path: directory.path, log: log)
            for minute in 0..<10 {
                let time = seeded - Int64(9 - minute) * 60_000
                history.append(.reading(liveReading(seq: UInt64(minute + 1), at: time, of: sensor)))
            }
            await history.flush()
            let central = try await CentralManager.connect(to: .address(bus.address))
            let hub = Hub(lastSeq: 10, executor: central.executor, sensors: KnownSensors.catalog)
            await hub.attach(history: history)
            var thermometers = ThermometerConfiguration()
            thermometers.searches = false
            thermometers.keepsScanning = true
            let bridge = CentralBridge(
                hub: hub, central: central, configuration: thermometers, advertisements: AdvertisementConfiguration(),
                log: log)
            var settings = SensorMemorySettings()
            settings.after = .seconds(60)
            settings.retryAfter = .seconds(1)
            settings.stallTimeout = Duration.seconds(10).scaled  // no test here stalls on purpose
            configure(&settings)
            let service = SensorMemoryService(
                hub: hub, monitor: bridge.monitor, settings: settings, log: log,
                clockSynchronized: { clockSynchronized })
            if let fault { try await mock.inject(.sensorMemory(fault, address: address)) }
            await service.start()
            for source in bridge.sources { await source.start() }
            do {
                try await body(
                    World(sensor: sensor, hub: hub, history: history, service: service, mock: mock, seeded: seeded))
            } catch {
                Issue.record(error)
            }
            await service.stop()
            for source in bridge.sources { await source.shutdown() }
            await history.close()
            await central.close()
            await mock.stop()
        }
    }

    static func liveReading(seq: UInt64, at milliseconds: Int64, of sensor: Sensor = .pvvx) -> Reading {
        Reading(
            seq: seq, time: Timestamp(millisecondsSince1970: milliseconds), address: sensor.address, name: nil,
            measurement: Measurement(profile: sensor.profile, quantities: Quantities([.temperature: 21]), raw: "00"))
    }

    /// Every reading of the world's sensor from `from` on.
    static func readings(_ world: World, from: Int64) async -> [Reading] {
        let page = await world.history.history(
            HistoryQuery(address: world.sensor.address, from: Timestamp(millisecondsSince1970: from)), limit: 10_000)
        return page.events.compactMap { if case .reading(let reading) = $0 { reading } else { nil } }
    }

    /// Waits until the sensor's entry says `downloads` ended.
    static func downloads(_ count: Int, _ world: World) async -> SensorMemoryStatus? {
        _ = await eventually(within: Duration.seconds(90).scaled) {
            await (world.service.status.first?.downloads ?? 0) >= count
        }
        await world.service.idle()
        return await world.service.status.first
    }

    /// No memory reading shares its minute with another reading of the device.
    static func checkOnePerMinute(_ readings: [Reading]) {
        let byMinute = Dictionary(grouping: readings) { $0.time.millisecondsSince1970 / 60_000 }
        for reading in readings where reading.source == .memory {
            #expect(byMinute[reading.time.millisecondsSince1970 / 60_000]?.count == 1, "\(reading.time) shared")
        }
    }

    @Test(
        .enabled(
            if: testTimeScale == 1, "timing under a sanitizer's load (three clean-clone CI runs): make test runs it"))
    func aGapIsFilledWithTheSensorsTimesAndNoDuplicateAtTheEdges() async throws {
        try await Self.withWorld { world in
            let status = await Self.downloads(1, world)
            #expect(status?.lastResult == "finished")
            #expect(abs((status?.clockDriftSeconds ?? 0) - Self.drift) <= 2)
            let readings = await Self.readings(world, from: world.seeded - 60_000)
            let memory = readings.filter { $0.source == .memory }
            Self.checkOnePerMinute(readings)
            // The records of the last 30 minutes (the oldest shares the seeded reading's minute
            // and is dropped), at their times on the gateway's clock.
            let newest = try await world.mock.sensorMemory(address: Self.address).newestRecordTime!
            let expected = (0..<30).map { (Int64(newest) - Self.drift - Int64($0) * 60) * 1000 }
            let firstLive = readings.first { $0.source == .live && $0.time.millisecondsSince1970 > world.seeded }
            // Records made after the download started (a slow run, under AddressSanitizer say, lasts
            // past the next minute's record) cannot be among them: its start is its end less the
            // time it held the sensor. A record of the minute before may be late too (the mock's
            // timer stamps it on the minute but runs late under load): a record interval of slack.
            let ended = status?.lastDownload?.millisecondsSince1970 ?? .max
            let started = ended == .max ? .max : ended - Int64((status?.connectedSeconds ?? 0) * 1000) - 60_000
            let gap = expected.filter { time in
                time > world.seeded && time / 60_000 != world.seeded / 60_000
                    && time / 60_000 < (firstLive?.time.millisecondsSince1970 ?? .max) / 60_000 && time < started
            }
            #expect(gap.count >= 27)
            for time in gap {
                #expect(memory.contains { abs($0.time.millisecondsSince1970 - time) <= 2000 }, "no record at \(time)")
            }
            // A slow run can outlast a minute: each record the sensor made since the start may
            // be stored as well.
            let newestAtStart = (world.seeded + 500) / 1000 + Self.drift + 30 * 60
            // (Rounded up: a record stamped part of a minute after that is one more.)
            let madeSinceStart = max(0, (Int64(newest) - newestAtStart + 59) / 60)
            // The record 30 minutes back shares the seeded reading's minute (and is dropped)
            // unless it falls on a whole minute: the reading, half a second before it, is then in
            // the minute before, and the record is stored too (one run in about 60).
            let oldest = (Int64(newest) - Self.drift - 30 * 60 - madeSinceStart * 60) * 1000
            let oldestStored = oldest / 60_000 != world.seeded / 60_000 ? 1 : 0
            #expect(memory.count <= 30 + oldestStored + Int(madeSinceStart))
            #expect(status?.stored == memory.count)
            // Sequence numbers were assigned as they were stored: after the seeded ones.
            #expect(memory.allSatisfy { $0.seq > 10 })

            // The same range again stores nothing twice.
            let before = memory.count
            let due = MemoryScheduler.Download(since: world.seeded / 1000, skipping: 0, setClock: false)
            await world.service.download(Self.sensor, KnownSensor(family: "pvvx"), due)
            let again = await world.service.status.first
            #expect(again?.stored == 0)
            #expect((again?.duplicates ?? 0) >= before)
            let after = await Self.readings(world, from: world.seeded - 60_000)
            #expect(after.filter { $0.source == .memory }.count == before)
        }
    }

    @Test func anInterruptedDownloadResumesAfterTheLastRecordStored() async throws {
        try await Self.withWorld(fault: .disconnectDuringDownload(afterRecords: 10)) { world in
            let first = await Self.downloads(1, world)
            #expect(first?.lastResult == "disconnected")
            // Ten received; the newest may share its minute with a live reading heard since
            // the start (a slow run), and is then a duplicate, not stored.
            #expect(first.map { $0.stored + $0.duplicates } == 10, "\(String(describing: first))")
            #expect((first?.stored ?? 0) >= 9)
            let second = await Self.downloads(2, world)
            #expect(second?.lastResult == "finished")
            // Resumed, not started again: the ten stored are not sent again (a few records
            // written meanwhile shift the numbers).
            #expect((second?.duplicates ?? 99) <= 3)
            let readings = await Self.readings(world, from: world.seeded - 60_000)
            Self.checkOnePerMinute(readings)
            #expect(readings.filter { $0.source == .memory }.count >= 28)
        }
    }
}

extension SensorMemoryServiceTests {
    /// The history up to date: no gap, so the only connection is the clock's.
    static let withoutGap = Sensor(
        address: sensor, profile: "pvvx", add: Sensor.pvvx.add, drift: drift, storedBefore: 0)

    @Test func aSensorHeardWithoutGapsHasItsClockSetByAVisitThatReadsNoRecords() async throws {
        let settings: (inout SensorMemorySettings) -> Void = { settings in
            settings.after = .seconds(600)
            settings.clockInterval = .seconds(2)
        }
        try await Self.withWorld(sensor: Self.withoutGap, clockSynchronized: true, configure: settings) { world in
            let visited = await eventually(within: Duration.seconds(60).scaled) {
                await world.service.status.first?.clockResult == "set"
            }
            #expect(visited)
            let status = await world.service.status.first
            #expect(status?.downloads == 0)
            #expect(abs((status?.clockDriftSeconds ?? 0) - Self.drift) <= 2)
            let clock = try await world.mock.sensorMemory(address: Self.address)
            #expect(clock.lastSetTime != 0)
            let readings = await Self.readings(world, from: world.seeded - 60_000)
            #expect(readings.allSatisfy { $0.source == .live })
        }
    }

    @Test func noClockVisitWhileThisMachinesClockIsUnsynchronised() async throws {
        let settings: (inout SensorMemorySettings) -> Void = { settings in
            settings.after = .seconds(600)
            settings.clockInterval = .seconds(1)
        }
        try await Self.withWorld(sensor: Self.withoutGap, clockSynchronized: false, configure: settings) { world in
            // Heard for several intervals: due each time, never visited.
            try await Task.sleep(for: .seconds(4))
            #expect(await world.service.status.isEmpty)
            let clock = try await world.mock.sensorMemory(address: Self.address)
            #expect(clock.lastSetTime == 0)
        }
    }
}

extension SensorMemoryServiceTests {
    /// A ThermoPro TP358: a display clock (two hours behind), no records blectl reads.
    static let thermoPro = Sensor(
        address: BluetoothAddress("49:22:05:EC:00:01"), profile: "thermopro",
        add: { scenario in
            var memory = MockSensorMemory()
            memory.preloaded = 1
            memory.clockDrift = -7200
            scenario.addThermoProClockSensors(1, memory: memory, interval: .milliseconds(300))
        }, drift: -7200, storedBefore: 0)

    @Test func aThermoProsClockIsSetWhenFirstHeardAndItsMemoryIsNeverAskedFor() async throws {
        try await Self.withWorld(sensor: Self.thermoPro, clockSynchronized: true) { world in
            let visited = await eventually(within: Duration.seconds(60).scaled) {
                await world.service.status.first?.clockResult == "set"
            }
            #expect(visited)
            let status = await world.service.status.first
            #expect(status?.downloads == 0 && status?.clockDriftSeconds == nil, "\(String(describing: status))")
            let clock = try await world.mock.sensorMemory(address: "49:22:05:EC:00:01")
            #expect(abs(Int64(clock.lastSetTime) - Int64(Timestamp.now().millisecondsSince1970 / 1000)) <= 2)
            do throws(ErrorInfo) {
                _ = try await world.service.downloadNow(Self.thermoPro.address)
                Issue.record("a ThermoPro's memory was asked for")
            } catch {
                #expect(error.code == .unavailable && error.message.contains("only its clock"), "\(error)")
            }
        }
    }
}

/// When downloads and clock settings are due.
struct MemorySchedulerTests {
    static let sensor = BluetoothAddress("A4:C1:38:EE:00:01")
    static func at(_ seconds: Int64) -> Timestamp {
        Timestamp(millisecondsSince1970: 1_800_000_000_000 + seconds * 1000)
    }

    @Test func aGapStartsOneDownloadAndTheIntervalHoldsTheNext() {
        var scheduler = MemoryScheduler(settings: SensorMemorySettings())
        #expect(scheduler.heard(Self.sensor, at: Self.at(0), previous: Self.at(-60)) == nil)
        let first = scheduler.heard(Self.sensor, at: Self.at(1200))
        #expect(
            first
                == MemoryScheduler.Download(since: Self.at(0).millisecondsSince1970 / 1000, skipping: 0, setClock: true)
        )
        #expect(scheduler.heard(Self.sensor, at: Self.at(1201)) == nil)  // running
        scheduler.finished(Self.sensor, interrupted: false, lastNumber: 20, failed: false)
        // Another gap, within the hour: waits for the interval.
        #expect(scheduler.heard(Self.sensor, at: Self.at(2400)) == nil)
        let next = scheduler.heard(Self.sensor, at: Self.at(4900))
        #expect(next?.since == Self.at(1201).millisecondsSince1970 / 1000)
        // The clock was tried at the first connection: not again within the day, refused or not.
        #expect(next?.setClock == false)
    }

    @Test func aCurrentTimeClockIsDueAtTheFirstConnectionThenDailyAndNeverWhenOff() {
        var scheduler = MemoryScheduler(settings: SensorMemorySettings())
        let device = BluetoothAddress("DC:A6:32:00:00:01")
        let dues = [0, 60, 86_399, 86_400, 86_401].map { scheduler.clockDue(device, at: Self.at($0)) }
        #expect(dues == [true, false, false, true, false])
        // A clock-only device is not a memory sensor known to the gap rule.
        #expect(!scheduler.knows(device))
        var off = SensorMemorySettings()
        off.clockSync = false
        var never = MemoryScheduler(settings: off)
        let due = never.clockDue(device, at: Self.at(0))
        #expect(!due)
    }

    @Test func aSensorHeardWithoutGapsIsVisitedForItsClockADayAfterItWasFirstHeardThenDaily() {
        var scheduler = MemoryScheduler(settings: SensorMemorySettings())
        // Heard every minute, no gap, from its first reading since start (none stored before).
        let heard = stride(from: 0, through: 3 * 86_400, by: 60).map { minute -> (Int64, MemoryScheduler.Download?) in
            let due = scheduler.heard(Self.sensor, at: Self.at(Int64(minute)))
            if due != nil { scheduler.clockVisitEnded(Self.sensor) }
            return (Int64(minute), due)
        }
        let visits = heard.filter { $0.1 != nil }
        #expect(visits.map(\.0) == [86_400, 2 * 86_400, 3 * 86_400])
        #expect(visits.allSatisfy { $0.1 == .clockVisit })
        // One at a time: a visit under way is not started again.
        var running = MemoryScheduler(settings: SensorMemorySettings())
        let first = stride(from: 0, through: 86_400, by: 60).compactMap {
            running.heard(Self.sensor, at: Self.at(Int64($0)))
        }
        #expect(first == [.clockVisit])
        #expect(running.heard(Self.sensor, at: Self.at(86_460)) == nil)
    }

    @Test func aDownloadThatSetTheClockPutsTheNextClockVisitADayAfterItAndOffMeansNone() {
        var scheduler = MemoryScheduler(settings: SensorMemorySettings())
        _ = scheduler.heard(Self.sensor, at: Self.at(0))
        // A gap at 10 h: its download sets the clock.
        #expect(scheduler.heard(Self.sensor, at: Self.at(36_000))?.setClock == true)
        scheduler.finished(Self.sensor, interrupted: false, lastNumber: 500, failed: false)
        // Heard every 10 minutes since (no gap): nothing until a day after that download.
        let quiet = stride(from: 36_600, to: 36_000 + 86_400, by: 600).compactMap {
            scheduler.heard(Self.sensor, at: Self.at(Int64($0)))
        }
        #expect(quiet.isEmpty)
        #expect(scheduler.heard(Self.sensor, at: Self.at(36_000 + 86_400)) == .clockVisit)

        var settings = SensorMemorySettings()
        settings.clockSync = false
        var onlyThis = settings
        onlyThis.clockSyncDevices[Self.sensor] = true
        var deviceOn = MemoryScheduler(settings: onlyThis)
        let (this, other) = (
            deviceOn.clockDue(Self.sensor, at: Self.at(0)),
            deviceOn.clockDue(BluetoothAddress("A4:C1:38:EE:00:02"), at: Self.at(0))
        )
        #expect(this && !other)
        var off = MemoryScheduler(settings: settings)
        let dues = stride(from: 0, through: 3 * 86_400, by: 600).compactMap {
            off.heard(Self.sensor, at: Self.at(Int64($0)))
        }
        #expect(dues.isEmpty)
    }

    @Test func aClockAloneIsVisitedWhenFirstHeardThenDailyAndNeverForAGap() {
        var scheduler = MemoryScheduler(settings: SensorMemorySettings())
        let heard = [0, 60, 86_399, 86_400, 86_460, 3 * 86_400].map { second in
            let due = scheduler.heard(Self.sensor, at: Self.at(Int64(second)), fillsGaps: false)
            if due != nil { scheduler.clockVisitEnded(Self.sensor) }
            return due
        }
        // A gap of over a day (86,460 to 259,200) is no download: there are no records.
        #expect(heard == [.clockVisit, nil, nil, .clockVisit, nil, .clockVisit])
        var settings = SensorMemorySettings()
        settings.clockSyncDevices[Self.sensor] = false
        var off = MemoryScheduler(settings: settings)
        #expect(off.heard(Self.sensor, at: Self.at(0), fillsGaps: false) == nil)
    }

    @Test func anInterruptedDownloadResumesSoonSkippingWhatItBrought() {
        var scheduler = MemoryScheduler(settings: SensorMemorySettings())
        _ = scheduler.heard(Self.sensor, at: Self.at(0), previous: Self.at(-1200))
        scheduler.finished(Self.sensor, interrupted: true, lastNumber: 12, failed: false)
        #expect(scheduler.heard(Self.sensor, at: Self.at(30)) == nil)
        let resumed = scheduler.heard(Self.sensor, at: Self.at(61))
        #expect(resumed?.skipping == 12)
        #expect(resumed?.since == Self.at(-1200).millisecondsSince1970 / 1000)
    }

    @Test func aDownloadAskedForTakesThePendingGapOrTheLookbackAndSetsTheClockAnyTime() {
        var scheduler = MemoryScheduler(settings: SensorMemorySettings())
        // Never heard with a gap: the last 30 days.
        let asked = scheduler.requested(Self.sensor, at: Self.at(0))
        #expect(
            asked
                == MemoryScheduler.Download(
                    since: Self.at(-30 * 86400).millisecondsSince1970 / 1000, skipping: 0, setClock: true))
        #expect(scheduler.requested(Self.sensor, at: Self.at(1)) == nil)  // running
        #expect(scheduler.heard(Self.sensor, at: Self.at(2)) == nil)
        scheduler.finished(Self.sensor, interrupted: false, lastNumber: 90, failed: false)
        // A gap pending (the interval holds the scheduled download): asked for, it is that
        // gap's, and the clock is set again within the day.
        #expect(scheduler.heard(Self.sensor, at: Self.at(1200)) == nil)
        let gap = scheduler.requested(Self.sensor, at: Self.at(1300))
        #expect(
            gap == MemoryScheduler.Download(since: Self.at(2).millisecondsSince1970 / 1000, skipping: 0, setClock: true)
        )
        scheduler.finished(Self.sensor, interrupted: false, lastNumber: 20, failed: false)
        // It counted as the interval's download.
        #expect(scheduler.heard(Self.sensor, at: Self.at(2600)) == nil)

        var settings = SensorMemorySettings()
        settings.clockSync = false
        var off = MemoryScheduler(settings: settings)
        #expect(off.requested(Self.sensor, at: Self.at(0))?.setClock == false)
    }
}
