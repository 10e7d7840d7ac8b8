import BlueZClient
@testable import Central
import MockBlueZ
import SensorModel
import TestSupport
import Testing

@Suite("GATT links through the adapter that owns the thermometer (issue 36)")
struct OwnedConnectionTests {
    static let pi = MockFixture.fahrenheitPi

    /// Two adapters, one thermometer, readings every 200 ms; `ranges` sets what each hears.
    func withThermometer(
        _ ranges: (inout MockScenario) throws -> Void,
        _ body: (MockFixture, ThermometerMonitor, EventLog) async throws -> Void
    ) async throws {
        var scenario = MockFixture.scenario(thermometers: 1, others: 0)
        scenario.adapters = MockScenario.standard(adapters: 2).adapters
        try ranges(&scenario)
        try await MockFixture.with(scenario: scenario, options: CentralOptions(adapters: .automatic)) { fixture in
            let (monitor, log) = await startMonitor(fixture)
            try await body(fixture, monitor, log)
            await monitor.shutdown()
        }
    }

    /// Two thermometers heard best by `hci0`, links limited to `links` per adapter, on
    /// `adapters` adapters.
    func withTwoThermometers(
        adapters: Int, links: Int, _ body: (MockFixture, ThermometerMonitor, EventLog) async throws -> Void
    ) async throws {
        var scenario = MockFixture.scenario(thermometers: 2, others: 0)
        scenario.adapters = MockScenario.standard(adapters: adapters).adapters
        if adapters > 1 {
            for thermometer in [Self.pi, MockFixture.celsiusPi] {
                try scenario.setSignal(.fixed(-45), adapter: "hci0", peripheral: thermometer)
                try scenario.setSignal(.fixed(-85), adapter: "hci1", peripheral: thermometer)
            }
        }
        var configuration = quickConfiguration()
        configuration.maxConnections = links
        try await MockFixture.with(scenario: scenario, options: CentralOptions(adapters: .automatic)) { fixture in
            let (monitor, log) = await startMonitor(fixture, configuration: configuration)
            try await body(fixture, monitor, log)
            await monitor.shutdown()
        }
    }

    @Test(
        "two adapters × max_connections 1 hold two thermometers at once: the owner full, the next goes to the other",
        .enabled(if: testTimeScale == 1, "timing under a sanitizer's load (clean-clone CI): make test runs it"))
    func linksPerAdapter() async throws {
        try await withTwoThermometers(adapters: 2, links: 1) { fixture, _, log in
            for thermometer in [Self.pi, MockFixture.celsiusPi] {
                _ = try await log.first(within: .seconds(20)) { event -> Bool? in
                    if case .connected(let address, _) = event, address.description == thermometer { true } else { nil }
                }
            }
            let links = await fixture.central.connectedDevicePaths().map(\.adapterName).sorted()
            #expect(links == ["hci0", "hci1"])
            #expect(!log.all.contains { if case .leftOut = $0 { true } else { false } })
            let mark = log.count
            for thermometer in [Self.pi, MockFixture.celsiusPi] {
                _ = try await log.first(after: mark, within: .seconds(5), reading(from: thermometer))
            }
        }
    }

    @Test("one adapter × max_connections 1: one thermometer connected, the other left out, as before")
    func oneAdapterOneLink() async throws {
        try await withTwoThermometers(adapters: 1, links: 1) { fixture, _, log in
            let connected = try await log.first(within: .seconds(20)) { event -> BluetoothAddress? in
                if case .connected(let address, _) = event { address } else { nil }
            }
            let reason = try await log.first(within: .seconds(20)) { event -> String? in
                if case .leftOut(let address, _, let reason) = event, address != connected { reason } else { nil }
            }
            #expect(reason == "left out: all 1 links are held or kept for thermometers known to work (max_connections)")
            try await Task.sleep(for: .seconds(1).scaled)
            let links = await fixture.central.connectedDevicePaths()
            #expect(links.map(\.deviceAddress) == [connected])
        }
    }

    /// The adapter (`hci1`) the thermometer's link goes through, once it is up.
    func linkAdapter(_ central: CentralManager) async -> String? {
        await central.connectedDevicePaths().first { $0.deviceAddress?.description == Self.pi }?.adapterName
    }

    /// The thermometer reported connected (subscribed).
    @Sendable static func connected(_ event: SensorEvent) -> Bool? {
        if case .connected(let address, _) = event, address.description == pi { true } else { nil }
    }

    /// Waits until the thermometer is reported connected after `mark`, then for a reading
    /// after that (its session watches the link by then).
    func streaming(_ log: EventLog, after mark: Int = 0) async throws {
        _ = try await log.first(after: mark, within: .seconds(20), Self.connected)
        let connected = log.all.indices.dropFirst(mark).first { Self.connected(log.all[$0]) == true } ?? mark
        _ = try await log.first(after: connected, within: .seconds(5), reading(from: Self.pi))
    }

    /// How many times the thermometer was reported connected.
    func connects(_ log: EventLog) -> Int {
        log.all.count { Self.connected($0) == true }
    }

    @Test("heard better by hci1, it connects through hci1; hci1 powered off, it moves to hci0 and reads on")
    func ownerAndHandover() async throws {
        try await withThermometer({ scenario in
            try scenario.setSignal(.fixed(-85), adapter: "hci0", peripheral: Self.pi)
            try scenario.setSignal(.fixed(-45), adapter: "hci1", peripheral: Self.pi)
        }) { fixture, _, log in
            try await streaming(log)
            #expect(await linkAdapter(fixture.central) == "hci1")
            let owner = await fixture.central.owner(of: BluetoothAddress(Self.pi)!)
            #expect(owner?.lastElement == "hci1")
            let owned = await fixture.central.adapterReports().map { "\($0.name)=\($0.devicesOwned)" }
            #expect(owned == ["hci0=0", "hci1=1"])

            let mark = log.count
            try await fixture.mock.inject(.powerOff(adapter: "hci1"))
            _ = try await log.first(after: mark, within: .seconds(20), Self.connected)
            let links = await fixture.central.connectedDevicePaths()
            #expect(links.map(\.adapterName) == ["hci0"], "\(links), \(log.all.dropFirst(mark))")
            let after = log.count
            _ = try await log.first(after: after, within: .seconds(5), reading(from: Self.pi))
        }
    }

    @Test("an adapter switched off while a connect waits for the scan to stop: no Connect is sent through it")
    func adapterOffDuringScanPause() async throws {
        var scenario = MockFixture.scenario(thermometers: 1, others: 0)
        scenario.adapters = MockScenario.standard(adapters: 2).adapters
        try await MockFixture.with(scenario: scenario, options: CentralOptions(adapters: .automatic)) { fixture in
            let central = fixture.central
            let address = try #require(BluetoothAddress(Self.pi))
            try await central.scanForPeripherals(matching: ScanFilter())
            let hci1 = try #require(await central.adapterPaths.first { $0.lastElement == "hci1" })
            let path = try #require(hci1.device(address))
            let heard = await central.wait(timeout: .seconds(10).scaled) { $0.hasDevice(path) ? true : nil }
            try #require(heard == true)
            // Real BlueZ announces Powered=false after the adapter's links are gone; here it
            // comes while the connect stops our scan (slow StopDiscovery replies).
            try await fixture.mock.inject(
                .slowReplies(delay: .milliseconds(500).scaled, times: 2, methods: ["StopDiscovery"]))
            let connecting = Task { () -> CentralError? in
                do throws(CentralError) {
                    try await central.connect(Peripheral(address: address, path: path, name: nil), timeout: .seconds(3))
                    return nil
                } catch {
                    return error
                }
            }
            try await Task.sleep(for: .milliseconds(200))
            try await fixture.mock.inject(.powerOff(adapter: "hci1"))
            #expect(await connecting.value == .adapterOff("hci1"))
        }
    }

    @Test(
        "an RSSI that jumps between the adapters at every advertisement moves no link, nor any reconnect",
        .enabled(
            if: testTimeScale == 1, "timing under a sanitizer's load (three clean-clone CI runs): make test runs it"))
    func flappingRSSI() async throws {
        try await withThermometer({ scenario in
            try scenario.flapSignal(peripheral: Self.pi)
        }) { fixture, _, log in
            try await streaming(log)
            let adapter = try #require(await linkAdapter(fixture.central))
            try await Task.sleep(for: .seconds(3).scaled)
            #expect(connects(log) == 1)
            #expect(await linkAdapter(fixture.central) == adapter)
            // Each reconnect goes through the owner, which the flapping does not change.
            var adapters: [String?] = []
            for _ in 0..<4 {
                let mark = log.count
                try await fixture.mock.inject(.remoteDisconnect(address: Self.pi, adapter: nil))
                try await streaming(log, after: mark)
                adapters.append(await linkAdapter(fixture.central))
            }
            #expect(adapters.allSatisfy { $0 == adapter }, "\(adapter) then \(adapters)")
            #expect(connects(log) == 5)
            let mark = log.count
            _ = try await log.first(after: mark, within: .seconds(5), reading(from: Self.pi))
        }
    }
}
