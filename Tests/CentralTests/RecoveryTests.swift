import Central
import MockBlueZ
import TestSupport
import Testing

/// Each fault the mock can inject, with the recovery asserted: readings from
/// the thermometer resume by themselves, well inside the bound.
@Suite("Recovery from BlueZ faults")
struct RecoveryTests {
    static let pi = MockFixture.fahrenheitPi
    /// The temperature set once the fault has struck: only a stream that recovered can carry
    /// it (the thermometer's own stays at its start value until then).
    static let fresh = (celsius: 33.3, raw: "91.9 F")

    /// Waits for the first reading, injects `fault` (and `then`), sets a new temperature,
    /// and expects a reading of that new temperature: not one that was already on its way.
    func recovers(
        from fault: MockFault, scenario: MockScenario = MockFixture.scenario(thermometers: 1, others: 0),
        then: MockFault? = nil, within bound: Duration = .seconds(15),
        expecting: ((EventLog, Int) async throws -> Void)? = nil
    ) async throws {
        try await MockFixture.with(scenario: scenario) { fixture in
            try await fixture.mock.setPattern(.constant, address: Self.pi)
            let (monitor, log) = await startMonitor(fixture)
            let before = try await log.first(reading(from: Self.pi))
            #expect(before.raw != Self.fresh.raw)
            // Subscribed (`connected` is reported after StartNotify), so that the fault
            // strikes a stream, not a subscription still on its way.
            _ = try await log.first { event -> Bool? in
                guard case .connected(let address, _) = event, address.description == Self.pi else { return nil }
                return true
            }
            let mark = log.count
            try await fixture.mock.inject(fault)
            if let then {
                try await Task.sleep(for: .milliseconds(300))
                try await fixture.mock.inject(then)
            }
            try await fixture.mock.setTemperature(Self.fresh.celsius, address: Self.pi)
            let start = ContinuousClock.now
            do {
                let name = try await log.first(after: mark, within: bound) { event -> String?? in
                    guard case .reading(let address, let name, let measurement) = event,
                        address.description == Self.pi, measurement.raw == Self.fresh.raw
                    else { return nil }
                    return .some(name)
                }
                // The advertised name, not the GAP name BlueZ caches and restores ("BlueZ 5.66").
                #expect(name == "Thermometer")
            } catch {
                // What the monitor saw, for the failure report.
                for event in log.all.suffix(from: mark) { print("event:", event) }
                throw error
            }
            let elapsed = ContinuousClock.now - start
            #expect(elapsed < bound.scaled)
            try await expecting?(log, mark)
            await monitor.shutdown()
        }
    }

    @Test("adapter off, then on: poweredOff is reported and readings resume")
    func adapterPower() async throws {
        try await recovers(from: .powerOff(adapter: "hci0"), then: .powerOn(adapter: "hci0")) { log, mark in
            _ = try await log.first(after: mark) { event -> Bool? in
                if case .adapterState(_, .poweredOff, _) = event { return true }
                return nil
            }
        }
    }

    @Test("a remote disconnect is reported and the link comes back")
    func remoteDisconnect() async throws {
        try await recovers(from: .remoteDisconnect(address: Self.pi, adapter: nil)) { log, mark in
            _ = try await log.first(after: mark) { event -> Bool? in
                if case .disconnected = event { return true }
                return nil
            }
        }
    }

    @Test("the peripheral's GATT app restarts with the link up: re-found by UUID and re-subscribed")
    func gattRestart() async throws {
        try await recovers(from: .gattRestart(address: Self.pi)) { log, mark in
            // Re-subscribed on the live link: nothing reported lost (the data watchdog would
            // have dropped the link and reported it).
            let lost = log.all.dropFirst(mark).filter { if case .disconnected = $0 { true } else { false } }
            #expect(lost.isEmpty, "\(lost)")
        }
    }

    @Test("Connect fails with le-connection-abort-by-local, then InProgress, then succeeds")
    func connectFailures() async throws {
        try await recovers(
            from: .failConnect(times: 2, error: .abortedByLocal, address: Self.pi),
            then: .remoteDisconnect(address: Self.pi, adapter: nil))
        try await recovers(
            from: .failConnect(times: 2, error: .inProgress, address: Self.pi),
            then: .remoteDisconnect(address: Self.pi, adapter: nil))
    }

    @Test("Connect succeeds without the Connected=true signal (the connect race)")
    func connectRace() async throws {
        try await recovers(
            from: .connectRace(times: 3, address: Self.pi), then: .remoteDisconnect(address: Self.pi, adapter: nil))
    }

    @Test("ServicesResolved never arrives once: disconnect and retry")
    func servicesNeverResolve() async throws {
        try await recovers(
            from: .servicesNeverResolve(times: 1, address: Self.pi),
            then: .remoteDisconnect(address: Self.pi, adapter: nil))
    }

    @Test("slow replies from bluetoothd")
    func slowReplies() async throws {
        try await recovers(
            from: .slowReplies(delay: .milliseconds(500), times: 4, methods: ["Connect", "ReadValue", "StartNotify"]),
            then: .remoteDisconnect(address: Self.pi, adapter: nil))
    }

    @Test("bluetoothd stops cleanly and comes back")
    func bluetoothdStops() async throws {
        try await recovers(from: .stopBluetoothd(restartAfter: .milliseconds(500)))
    }

    @Test("bluetoothd crashes (only NameOwnerChanged) and comes back")
    func bluetoothdCrashes() async throws {
        try await recovers(from: .crashBluetoothd(restartAfter: .milliseconds(500))) { log, mark in
            _ = try await log.first(after: mark) { event -> Bool? in
                if case .adapterState(_, .resetting, _) = event { return true }
                return nil
            }
        }
    }

    @Test("the adapter is removed and re-added: the link is reported lost before it is back")
    func adapterRemoved() async throws {
        try await recovers(from: .removeAdapter("hci0"), then: .addAdapter("hci0")) { log, mark in
            // BlueZ removes the GATT objects before the device: that is no app restart here,
            // and the `connected` of the link that came back has a `disconnected` before it.
            let events = log.all.dropFirst(mark)
            let lost = events.firstIndex { if case .disconnected = $0 { true } else { false } }
            let back = events.firstIndex { if case .connected = $0 { true } else { false } }
            #expect(lost != nil, "no disconnected after the adapter was removed")
            if let lost, let back { #expect(lost < back) }
        }
    }
}
