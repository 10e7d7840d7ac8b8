import Central
import Glibc
import MockBlueZ
import SensorModel
import TestSupport
import Testing
import ConcurrencySupport

/// The memory reader against the mock's memory sensor: slots, stalls, bad records, clocks.
@Suite(.serialized) struct MemoryReaderTests {
    static let address = "A4:C1:38:EE:00:01"

    static func scenario(preloaded: Int = 20, pace: Duration = .milliseconds(1), drift: Int64 = -3600) -> MockScenario {
        var scenario = MockScenario.standard(thermometers: 0, others: 0)
        scenario.timings = .fast
        var memory = MockSensorMemory()
        memory.interval = .seconds(60)
        memory.preloaded = preloaded
        memory.clockDrift = drift
        memory.pace = pace
        scenario.addMemorySensors(1, memory: memory, interval: .milliseconds(200))
        return scenario
    }

    /// One link at most, so a slot kept by mistake shows. The connect and service bounds
    /// scale with the sanitizers' time scale: a connect timing out is not what these test.
    static func oneLink() -> ThermometerConfiguration {
        var configuration = quickConfiguration()
        configuration.connectTimeout = configuration.connectTimeout.scaled
        configuration.serviceTimeout = configuration.serviceTimeout.scaled
        configuration.maxConnecting = 1
        configuration.maxConnections = 1
        return configuration
    }

    static func request(
        setClock: Bool = false, synchronized: Bool = false, stall: Duration = .seconds(5),
        of sensor: (address: String, family: ProfileID) = (address, "pvvx")
    ) -> MemoryReadRequest {
        MemoryReadRequest(
            address: BluetoothAddress(sensor.address)!, family: sensor.family, newerThan: nil, limit: 15,
            setClock: setClock, gatewayClockSynchronized: synchronized, stallTimeout: stall, slotTimeout: .seconds(2))
    }

    static func unixNow() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec)
    }

    /// Runs `body` with both monitors started and the sensor's device object known.
    static func withSensor(
        _ scenario: MockScenario, address: String = address,
        _ body: (MockFixture, ThermometerMonitor) async throws -> Void
    ) async throws {
        try await MockFixture.with(scenario: scenario) { fixture in
            let (adverts, monitor, _) = await AdvertisementFixture.start(fixture, thermometers: oneLink())
            let known = await eventually(within: Duration.seconds(60).scaled) {
                await fixture.central.knownDevicePath(BluetoothAddress(address)!) != nil
            }
            #expect(known)
            try await body(fixture, monitor)
            await AdvertisementFixture.stop(adverts, monitor)
        }
    }

    @Test(
        "two adapters, one link each: with the owner's link held by a thermometer, a download goes through the other",
        .enabled(if: testTimeScale == 1, "timing under a sanitizer's load (clean-clone CI): make test runs it"))
    func aDownloadTakesTheNextAdaptersLink() async throws {
        var scenario = Self.scenario()
        scenario.peripherals.insert(MockScenario.standard(thermometers: 1, others: 0).peripherals[0], at: 0)
        scenario.adapters = MockScenario.standard(adapters: 2).adapters
        for device in [Self.address, MockFixture.fahrenheitPi] {
            try scenario.setSignal(.fixed(-45), adapter: "hci0", peripheral: device)
            try scenario.setSignal(.fixed(-85), adapter: "hci1", peripheral: device)
        }
        try await MockFixture.with(scenario: scenario, options: CentralOptions(adapters: .automatic)) { fixture in
            let (adverts, monitor, log) = await AdvertisementFixture.start(fixture, thermometers: Self.oneLink())
            _ = try await log.first(within: .seconds(20)) { event -> Bool? in
                if case .connected = event { true } else { nil }
            }
            #expect(await fixture.central.connectedDevicePaths().map(\.adapterName) == ["hci0"])
            let known = await eventually(within: Duration.seconds(60).scaled) {
                await fixture.central.knownDevicePath(BluetoothAddress(Self.address)!) != nil
            }
            #expect(known)
            // One link on each adapter, hci0's held: the download has hci1's, or none.
            let result = await monitor.readMemory(Self.request()) { _ in }
            #expect(result.end == .finished, "\(result)")
            #expect(result.received > 0)
            // The thermometer kept its link on hci0 all along.
            #expect(await fixture.central.connectedDevicePaths().map(\.adapterName) == ["hci0"])
            await AdvertisementFixture.stop(adverts, monitor)
        }
    }

    @Test("a download asked for before BlueZ has the device's object waits for it, within its bound")
    func aDownloadWaitsForTheDeviceObject() async throws {
        try await MockFixture.with(scenario: Self.scenario()) { fixture in
            // Not heard yet: no device object (as a reading heard on the management socket
            // can come before bluetoothd's object).
            try await fixture.mock.inject(.outOfRange(times: nil, address: Self.address))
            let (adverts, monitor, _) = await AdvertisementFixture.start(fixture, thermometers: Self.oneLink())
            var never = Self.request()
            never.deviceTimeout = .milliseconds(300)
            let failed = await monitor.readMemory(never) { _ in }
            #expect(failed.end == .failed("no device object for \(Self.address) within 0.3 seconds (not heard lately)"))
            let heardSoon = Task {
                try await Task.sleep(for: .milliseconds(500))
                await fixture.mock.clearFaults()
            }
            var request = Self.request()
            request.deviceTimeout = Duration.seconds(30).scaled
            let result = await monitor.readMemory(request) { _ in }
            #expect(result.end == .finished, "\(result)")
            #expect(result.received > 0)
            try await heardSoon.value
            await AdvertisementFixture.stop(adverts, monitor)
        }
    }

    @Test func aStalledDownloadEndsAndReleasesItsSlot() async throws {
        // A record every 2 minutes (scaled, as the bound below): a stall of 1 s ends far sooner.
        try await Self.withSensor(Self.scenario(pace: Duration.seconds(120).scaled)) { _, monitor in
            let started = ContinuousClock.now
            let first = await monitor.readMemory(Self.request(stall: .seconds(1))) { _ in }
            #expect(first.end == .stalled)
            #expect(ContinuousClock.now - started < Duration.seconds(15).scaled)
            // One link in all: the second gets it only if the first gave it back.
            let second = await monitor.readMemory(Self.request(stall: .seconds(1))) { _ in }
            #expect(second.end == .stalled)
        }
    }

    @Test func aCorruptRecordIsRejectedAndTheRestReported() async throws {
        try await Self.withSensor(Self.scenario()) { fixture, monitor in
            try await fixture.mock.inject(.sensorMemory(.corruptRecord(number: 3), address: Self.address))
            let records = Locked<[Int64]>([])
            let result = await monitor.readMemory(Self.request()) { step in
                if case .record(_, let time) = step { records.withLock { $0.append(time) } }
            }
            #expect(result.end == .finished)
            #expect(result.rejected == 1)
            #expect(result.received == 14)
            #expect(records.withLock { $0.count } == 14)
        }
    }

    @Test func aClockVisitSetsTheClockAndReadsNoRecord() async throws {
        try await Self.withSensor(Self.scenario()) { fixture, monitor in
            var request = Self.request(setClock: true, synchronized: true)
            request.clockOnly = true
            let records = Locked(0)
            let visit = await monitor.readMemory(request) { _ in records.withLock { $0 += 1 } }
            #expect(visit.end == .finished)
            #expect(visit.clock == .set)
            #expect(abs((visit.drift ?? 0) + 3600) <= 2)
            #expect(visit.received == 0)
            #expect(records.withLock { $0 } == 0)
            let clock = try await fixture.mock.sensorMemory(address: Self.address)
            #expect(abs(Int64(clock.sensorTime) - Self.unixNow()) <= 2)
        }
    }

    @Test func theClockIsSetOnlyWhenTheGatewayIsSynchronisedAndARefusalIsReported() async throws {
        try await Self.withSensor(Self.scenario()) { fixture, monitor in
            let unsynchronized = await monitor.readMemory(Self.request(setClock: true, synchronized: false)) { _ in }
            #expect(unsynchronized.clock == .gatewayUnsynchronized)
            let untouched = try await fixture.mock.sensorMemory(address: Self.address)
            #expect(untouched.lastSetTime == 0)
            #expect(abs((unsynchronized.drift ?? 0) + 3600) <= 2)

            let set = await monitor.readMemory(Self.request(setClock: true, synchronized: true)) { _ in }
            #expect(set.clock == .set)
            let clock = try await fixture.mock.sensorMemory(address: Self.address)
            #expect(abs(Int64(clock.sensorTime) - Self.unixNow()) <= 2)

            try await fixture.mock.inject(.sensorMemory(.refuseClockWrite(times: 1), address: Self.address))
            try await Task.sleep(for: .milliseconds(1100))  // a write in another second than the last
            let refused = await monitor.readMemory(Self.request(setClock: true, synchronized: true)) { _ in }
            guard case .refused = refused.clock else {
                Issue.record("expected a refusal, got \(refused.clock)")
                return
            }
            #expect(refused.end == .finished)
        }
    }

    @Test func aStockSensorsClockIsReadAndSetThroughItsCharacteristicAndItsRecordsCounted() async throws {
        let stock = (address: "A4:C1:38:EF:00:01", family: ProfileID("mibeacon"))
        var scenario = MockScenario.standard(thermometers: 0, others: 0)
        scenario.timings = .fast
        var memory = MockSensorMemory.xiaomiStock
        memory.preloaded = 20
        memory.clockDrift = -3600
        memory.pace = .milliseconds(1)
        scenario.addStockMemorySensors(1, memory: memory, interval: .milliseconds(200))
        try await Self.withSensor(scenario, address: stock.address) { fixture, monitor in
            let unsynchronized = await monitor.readMemory(Self.request(setClock: true, of: stock)) { _ in }
            #expect(unsynchronized.clock == .gatewayUnsynchronized)
            #expect(abs((unsynchronized.drift ?? 0) + 3600) <= 2)
            // The newest 15 of 20 hourly records, numbered 1...15 from the first index asked.
            #expect(unsynchronized.end == .finished && unsynchronized.received == 15)
            #expect(unsynchronized.lastNumber == 15)

            let set = await monitor.readMemory(Self.request(setClock: true, synchronized: true, of: stock)) { _ in }
            #expect(set.clock == .set)
            let clock = try await fixture.mock.sensorMemory(address: stock.address)
            #expect(abs(Int64(clock.sensorTime) - Self.unixNow()) <= 2)

            try await fixture.mock.inject(.sensorMemory(.refuseClockWrite(times: 1), address: stock.address))
            let refused = await monitor.readMemory(Self.request(setClock: true, synchronized: true, of: stock)) { _ in }
            guard case .refused = refused.clock else {
                Issue.record("expected a refusal, got \(refused.clock)")
                return
            }
            #expect(refused.end == .finished)
        }
    }
}
