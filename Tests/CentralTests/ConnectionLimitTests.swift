import BlueZClient
import Central
import MockBlueZ
import SensorModel
import TestSupport
import Testing
import ConcurrencySupport
import UnixSupport

@Suite("Connection limits: max_connecting and max_connections")
struct ConnectionLimitTests {
    @Test(
        "20 thermometers: 5 connected, the other 15 left out, each logged and reported once",
        .enabled(
            if: testTimeScale == 1, "timing under a sanitizer's load (three clean-clone CI runs): make test runs it"))
    func twentyThermometers() async throws {
        try await MockFixture.with(scenario: MockFixture.scenario(thermometers: 20, others: 0)) { fixture in
            let recorder = LogRecorder()
            let events = EventLog()
            var configuration = quickConfiguration()
            configuration.serviceTimeout = .seconds(2)
            let monitor = ThermometerMonitor(
                central: fixture.central, configuration: configuration,
                log: Log(level: .info, sink: recorder.sink)
            ) { events.record($0) }
            await monitor.start()
            let connected = try await collect(5, from: events, within: .seconds(30)) { event in
                if case .connected(let address, _) = event { address } else { nil }
            }
            let leftOut = try await collect(15, from: events, within: .seconds(30)) { event in
                if case .leftOut(let address, _, let reason) = event, reason.hasPrefix("left out") {
                    address
                } else {
                    nil
                }
            }
            #expect(Set(connected).isDisjoint(with: leftOut))
            #expect(Set(leftOut).count == 15)
            let logged = recorder.messages.filter { $0.contains(" left out: all 5 links are held") }
            #expect(logged.count == 15)
            // A link that drops is taken again by its thermometer, known to work, not by one
            // of those waiting; still 5 links, and no thermometer told twice.
            let dropped = connected[0]
            let mark = events.count
            try await fixture.mock.inject(.remoteDisconnect(address: dropped.description, adapter: nil))
            let again = try await events.first(after: mark, within: .seconds(15)) { event in
                if case .connected(let address, _) = event { address } else { nil }
            }
            #expect(again == dropped)
            // A slot given wrongly to one of those waiting would have been given at the drop;
            // the reconnected thermometer reading again comes after its whole session.
            let afterAgain = events.count
            let heldAtFive = try await nothingHappened(
                before: "a reading from the reconnected thermometer",
                reached: {
                    _ = try await events.first(
                        after: afterAgain, within: .seconds(15), reading(from: dropped.description))
                    return true
                }
            ) {
                let linked = await fixture.mock.devices().filter(\.connected).count
                return linked != 5 || events.all.count { if case .leftOut = $0 { true } else { false } } != 15
            }
            let linked = await fixture.mock.devices().filter(\.connected).map(\.address)
            #expect(heldAtFive, "\(linked)")
            await monitor.shutdown()
        }
    }

    @Test("a Connect that hangs holds the one attempt for its timeout only; the others connect after it")
    func hangingConnect() async throws {
        var scenario = MockFixture.scenario(thermometers: 2, others: 0)
        scenario.add(MockFlood(devices: 1, fakeThermometers: 1, hangingConnects: 1, interval: .milliseconds(100)))
        try await MockFixture.with(scenario: scenario) { fixture in
            var configuration = quickConfiguration()
            let timeout = Duration.seconds(1).scaled
            configuration.connectTimeout = timeout
            configuration.serviceTimeout = timeout
            // Each line with when it was logged: the hanging attempt's start and its end.
            let lines = Locked<[(at: ContinuousClock.Instant, text: String)]>([])
            let events = EventLog()
            let monitor = ThermometerMonitor(
                central: fixture.central, configuration: configuration,
                log: Log(level: .debug) { _, text in lines.withLock { $0.append((.now, text)) } }
            ) { events.record($0) }
            await monitor.start()
            for address in [MockFixture.fahrenheitPi, MockFixture.celsiusPi] {
                _ = try await events.first(within: .seconds(30), reading(from: address))
            }
            // The mock never answers the decoy's Connect: only the timeout ends the attempt.
            let ended = await eventually { lines.withLock { $0.contains { $0.text.contains("timed out") } } }
            await monitor.shutdown()
            let logged = lines.withLock { $0 }
            try #require(ended, "the hanging attempt never ended: \(logged.map(\.text))")
            let end = try #require(logged.first { $0.text.contains("timed out") })
            let subject = try #require(end.text.components(separatedBy: ": ").first)  // "thermometer ADDRESS"
            let start = try #require(logged.last { $0.at <= end.at && $0.text.hasPrefix("\(subject): connecting") })
            let held = end.at - start.at
            // From asking for the slot: at least the timeout, and not much more (the slot may
            // have been the other thermometers' first, for a fast-timings connect each).
            #expect(held >= timeout, "ended after \(held): \(end.text)")
            #expect(held < timeout + Duration.seconds(5).scaled, "held for \(held): \(end.text)")
        }
    }

    /// The first `count` values `match` picks from the events, in order.
    private func collect<T: Sendable>(
        _ count: Int, from events: EventLog, within timeout: Duration, _ match: @escaping @Sendable (SensorEvent) -> T?
    ) async throws -> [T] {
        let found = Locked<[T]>([])
        _ = try await events.first(within: timeout) { event -> Bool? in
            guard let value = match(event) else { return nil }
            return found.withLock { found in
                found.append(value)
                return found.count >= count ? true : nil
            }
        }
        return found.withLock { Array($0.prefix(count)) }
    }
}

@Suite("What newer BlueZ answers")
struct NewerBlueZTests {
    static let pi = MockFixture.fahrenheitPi

    @Test("Connect answering AlreadyConnected with the device connected counts as connected")
    func alreadyConnected() async throws {
        try await MockFixture.with { fixture in
            let central = fixture.central
            let peripheral = try await discover(Self.pi, on: central)
            await central.stopScan()
            try await fixture.mock.inject(.failConnect(times: 1, error: .alreadyConnected, address: Self.pi))
            try await central.connect(peripheral, timeout: .seconds(5))
            #expect(await central.isReady(peripheral))
        }
    }

    @Test("Connect answering AlreadyConnected while the device says Connected=false is a failure")
    func alreadyConnectedWithoutLink() async throws {
        try await MockFixture.with { fixture in
            let central = fixture.central
            let peripheral = try await discover(Self.pi, on: central)
            await central.stopScan()
            try await fixture.mock.inject(.failConnect(times: 1, error: .alreadyConnectedWithoutLink, address: Self.pi))
            await #expect(throws: CentralError.bluez(.alreadyConnected("Already Connected"))) {
                try await central.connect(peripheral, timeout: .seconds(5))
            }
            #expect(await !central.isReady(peripheral))
            // The next attempt connects.
            try await central.connect(peripheral, timeout: .seconds(5))
            #expect(await central.isReady(peripheral))
        }
    }

    @Test("StopDiscovery answering InProgress once the session is gone is taken as stopped")
    func stopDiscoveryInProgress() async throws {
        try await MockFixture.with { fixture in
            // BlueZ's client takes it as stopped.
            let client = try await BlueZService.connect(to: .address(fixture.bus.address))
            let adapter = try #require(await client.adapters().first?.path)
            try await client.startDiscovery(adapter)
            try await fixture.mock.inject(.stopDiscoveryInProgress(times: 1))
            try await client.stopDiscovery(adapter)
            await client.close()
            // So does the central.
            let central = fixture.central
            _ = try await discover(Self.pi, on: central)
            // Restarting the scan: the stop answers InProgress, the scan starts again.
            try await fixture.mock.inject(.stopDiscoveryInProgress(times: 1))
            try await central.restartScan()
            #expect(await central.isScanning)
            _ = try await discover(Self.pi, on: central, scanning: false)
            // Stopping: InProgress, and the central no longer holds a session.
            try await fixture.mock.inject(.stopDiscoveryInProgress(times: 1))
            await central.stopScan()
            #expect(await !central.isScanning)
            _ = try await discover(Self.pi, on: central)
        }
    }

    @Test("StartDiscovery answering InProgress without a session is not taken as scanning")
    func startDiscoveryBusy() async throws {
        try await MockFixture.with { fixture in
            let central = fixture.central
            _ = try await discover(Self.pi, on: central)
            // The restart's StartDiscovery meets a busy kernel: bluetoothd answers InProgress
            // and holds no session for us. The central must end up really scanning.
            try await fixture.mock.inject(.startDiscoveryBusy(times: 1))
            try await central.restartScan()
            #expect(await central.isScanning)
            _ = try await discover(Self.pi, on: central, scanning: false)
        }
    }

    /// Scans (unless `scanning` is false: the scan is on) until `address` is discovered.
    private func discover(
        _ address: String, on central: CentralManager, scanning: Bool = true
    ) async throws -> Peripheral {
        let events = await central.events()
        if scanning { try await central.scanForPeripherals(matching: ScanFilter()) }
        return try await withTimeout(.seconds(10)) {
            for await event in events {
                if case .discovered(let discovery) = event, discovery.peripheral.address.description == address {
                    return discovery.peripheral
                }
            }
            throw CentralError.peripheralGone
        }
    }
}
