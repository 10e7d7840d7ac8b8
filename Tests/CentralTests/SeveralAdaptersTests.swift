@testable import Central
import MockBlueZ
import SensorModel
import TestSupport
import Testing
import UnixSupport

@Suite("Several adapters: each scans, one wedged or gone takes only itself (issue 36)")
struct SeveralAdaptersTests {
    static let hci0 = "00:1A:7D:DA:71:10"
    static let hci1 = "00:1A:7D:DA:71:11"

    /// Two adapters, two devices that advertise, no thermometer: discovery runs all the time.
    func withTwoAdapters(
        adapters: AdapterSet = .automatic, scanWatchdog: Duration? = nil,
        _ body: (MockFixture, ThermometerMonitor) async throws -> Void
    ) async throws {
        var scenario = MockScenario.standard(thermometers: 0, others: 2, adapters: 2)
        scenario.notifyInterval = .milliseconds(200)
        scenario.timings = .fast
        try await MockFixture.with(scenario: scenario, options: CentralOptions(adapters: adapters)) { fixture in
            var configuration = quickConfiguration()
            configuration.scanWatchdog = scanWatchdog
            let (monitor, _) = await startMonitor(fixture, configuration: configuration)
            try await body(fixture, monitor)
            await monitor.shutdown()
        }
    }

    /// A monitor whose log (info and up) the test reads, over `scenario` with `options`.
    func withLoggedMonitor(
        _ scenario: MockScenario, options: CentralOptions,
        _ body: (MockFixture, ThermometerMonitor, LogRecorder) async throws -> Void
    ) async throws {
        try await MockFixture.with(scenario: scenario, options: options) { fixture in
            let recorder = LogRecorder()
            let monitor = ThermometerMonitor(
                central: fixture.central, configuration: quickConfiguration(),
                log: Log(level: .info, sink: recorder.sink)
            ) { _ in }
            await monitor.start()
            try await body(fixture, monitor, recorder)
            await monitor.shutdown()
        }
    }

    @Test("adapters = auto scans on both adapters, each with its own session")
    func scansOnBoth() async throws {
        try await withTwoAdapters { fixture, _ in
            #expect(await eventually { await scanning(fixture.central, "hci0") })
            #expect(await eventually { await scanning(fixture.central, "hci1") })
            let reports = await fixture.central.adapterReports()
            #expect(reports.map(\.name) == ["hci0", "hci1"])
            #expect(reports.map(\.isPrimary) == [true, false])
        }
    }

    @Test("one adapter silenced climbs its own ladder while the other keeps its session and hears")
    func silenceOnOne() async throws {
        try await withTwoAdapters(scanWatchdog: .seconds(2).scaled) { fixture, monitor in
            #expect(await eventually { await scanning(fixture.central, "hci1") })
            #expect(await eventually { await fixture.central.hasHeardDevices })
            try await fixture.mock.inject(.silence(adapter: "hci1", cure: .restartDiscovery))
            let cured = await eventually(within: .seconds(30)) {
                await ladder(monitor, "hci1")?.recoveries == 1
            }
            let statuses = await monitor.scanWatchdogStatuses
            #expect(cured, "statuses: \(statuses)")
            #expect(statuses.first { $0.key.lastElement == "hci1" }?.value.steps == [.restartDiscovery: 1])
            #expect(statuses.first { $0.key.lastElement == "hci0" }?.value.steps ?? [:] == [:])
            #expect(await scanning(fixture.central, "hci0"))
        }
    }

    @Test("an adapter that refuses StartDiscovery: the other scans, and it is taken up once it accepts")
    func refusingAdapter() async throws {
        var scenario = MockScenario.standard(thermometers: 0, others: 2, adapters: 2)
        scenario.timings = .fast
        try await MockFixture.with(scenario: scenario, options: CentralOptions(adapters: .automatic)) { fixture in
            try await fixture.mock.inject(.startDiscoveryBusy(times: .max, adapter: "hci1"))
            let (monitor, _) = await startMonitor(fixture)
            #expect(await eventually { await scanning(fixture.central, "hci0") })
            try await Task.sleep(for: .milliseconds(500))
            #expect(!(await scanning(fixture.central, "hci1")))
            await fixture.mock.clearFaults()
            #expect(await eventually(within: .seconds(10)) { await scanning(fixture.central, "hci1") })
            await monitor.shutdown()
        }
    }

    @Test("a configured adapter that never appears: the central runs with the other and names it missing")
    func missingAdapter() async throws {
        let absent = BluetoothAddress("00:1A:7D:DA:71:99")
        let adapters = AdapterSet.listed([.address(BluetoothAddress(Self.hci0)!), .address(absent)])
        try await withTwoAdapters(adapters: adapters) { fixture, _ in
            #expect(await fixture.central.state == .poweredOn)
            #expect(await fixture.central.missingAdapters == ["00:1A:7D:DA:71:99"])
            #expect(await eventually { await scanning(fixture.central, "hci0") })
            #expect(!(await scanning(fixture.central, "hci1")))
            #expect(await fixture.central.adapterReports().map(\.name) == ["hci0"])
        }
    }

    @Test("two adapters with one address: the first is used, the other left out and named in a warning")
    func duplicateAddress() async throws {
        var scenario = MockScenario.standard(thermometers: 0, others: 2, adapters: 2)
        scenario.timings = .fast
        scenario.adapters[1].address = scenario.adapters[0].address
        scenario.allowsDuplicateAdapterAddresses = true
        try await withLoggedMonitor(scenario, options: CentralOptions(adapters: .automatic)) { fixture, _, recorder in
            #expect(await fixture.central.state == .poweredOn)
            #expect(await eventually { await scanning(fixture.central, "hci0") })
            #expect(await fixture.central.adapterReports().map(\.name) == ["hci0"])
            #expect(await fixture.central.duplicateAdapters == ["hci1"])
            #expect(await fixture.central.adapterPaths.map(\.lastElement) == ["hci0"])
            let warning = "adapter hci1 not used: the address of an adapter in use"
            #expect(recorder.messages.count { $0.contains(warning) } == 1, "\(recorder.messages)")
            // Another adapter with that address, plugged in later, is named too.
            try await fixture.mock.inject(.addAdapter("hci2", address: Self.hci0))
            #expect(
                await eventually { recorder.messages.contains { $0.contains("adapters hci1, hci2 not used") } },
                "\(recorder.messages)")
            #expect(await fixture.central.adapterReports().map(\.name) == ["hci0"])
        }
    }

    @Test("hci1 listed by name is resolved to its address: re-added as hci2, it is taken up again")
    func renumbered() async throws {
        try await withTwoAdapters(adapters: .listed([.unresolved(name: "hci1")])) { fixture, _ in
            #expect(await eventually { await scanning(fixture.central, "hci1") })
            try await fixture.mock.inject(.removeAdapter("hci1"))
            #expect(await eventually { !(await scanning(fixture.central, "hci1")) })
            #expect(await fixture.central.missingAdapters == ["hci1"])
            try await fixture.mock.inject(.addAdapter("hci2", address: Self.hci1))
            #expect(await eventually(within: .seconds(10)) { await scanning(fixture.central, "hci2") })
            #expect(await fixture.central.adapterReports().map(\.name) == ["hci2"])
            #expect(await fixture.central.missingAdapters.isEmpty)
        }
    }

    @Test("hci1 back as hci2 is logged with its new name, gone and back again (the e2e rig's scenario 15)")
    func renumberedLogged() async throws {
        var scenario = MockScenario.standard(thermometers: 0, others: 2, adapters: 2)
        scenario.timings = .fast
        let options = CentralOptions(adapters: .listed([.unresolved(name: "hci1")]))
        try await withLoggedMonitor(scenario, options: options) { fixture, _, recorder in
            #expect(await eventually { await scanning(fixture.central, "hci1") })
            try await fixture.mock.inject(.removeAdapter("hci1"))
            #expect(
                await eventually { recorder.messages.contains { $0.contains("configured adapter hci1 not present") } },
                "\(recorder.messages)")
            try await fixture.mock.inject(.addAdapter("hci2", address: Self.hci1))
            #expect(
                await eventually(within: .seconds(10)) {
                    recorder.messages.contains { $0.contains("configured adapter hci1 (now hci2) present again") }
                }, "\(recorder.messages)")
        }
    }

    @Test("a second adapter powered off takes only its own scan with it")
    func powerOffOne() async throws {
        try await withTwoAdapters { fixture, _ in
            #expect(await eventually { await scanning(fixture.central, "hci1") })
            try await fixture.mock.inject(.powerOff(adapter: "hci1"))
            #expect(await eventually { !(await scanning(fixture.central, "hci1")) })
            #expect(await scanning(fixture.central, "hci0"))
            #expect(await fixture.central.state == .poweredOn)
            try await fixture.mock.inject(.powerOn(adapter: "hci1"))
            #expect(await eventually { await scanning(fixture.central, "hci1") })
        }
    }

    @Test("a sensor heard by both adapters gives one reading per measurement, with each adapter's RSSI")
    func oneReadingPerMeasurement() async throws {
        var scenario = AdvertisementFixture.scenario()
        scenario.adapters = MockScenario.standard(adapters: 2).adapters
        try await MockFixture.with(scenario: scenario, options: CentralOptions(adapters: .automatic)) { fixture in
            let (adverts, monitor, log) = await AdvertisementFixture.start(fixture)
            let (statistics, raws) = try await AdvertisementFixture.readTenMeasurements(adverts, log)
            // Each reading of the counted formats carries a new counter: no payload twice.
            for (index, values) in raws.enumerated() {
                #expect(Set(values).count == values.count, "sensor \(index): \(values)")
            }
            for sensor in statistics.sensors {
                #expect(Set(sensor.heardBy.map(\.adapter)) == ["hci0", "hci1"], "\(sensor.address)")
                #expect(sensor.heardBy.allSatisfy { $0.rssi != nil })
            }
            await AdvertisementFixture.stop(adverts, monitor)
        }
    }
}

/// Whether the central holds a discovery session on the adapter named `name` now.
func scanning(_ central: CentralManager, _ name: String) async -> Bool {
    guard let path = await central.adapterPaths.first(where: { $0.lastElement == name }) else { return false }
    return await central.isScanning(on: path)
}

/// The scan watchdog's ladder of the adapter named `name`.
func ladder(_ monitor: ThermometerMonitor, _ name: String) async -> RecoveryLadderStatus? {
    await monitor.scanWatchdogStatuses.first { $0.key.lastElement == name }?.value
}
