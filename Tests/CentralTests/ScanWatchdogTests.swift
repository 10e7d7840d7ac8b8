import BlueZClient
@testable import Central
import Glibc
import MockBlueZ
import SensorModel
import TestSupport
import Testing
import ConcurrencySupport

/// The libbluetooth boundary, stubbed: records each reset and does to the mock what the
/// kernel's HCI down and up does to bluetoothd.
final class ControllerResetStub: ControllerResetting {
    private let state = Locked<(mock: MockBluetoothd?, calls: [Int])>((nil, []))

    /// The controllers reset so far, by index.
    var calls: [Int] { state.withLock { $0.calls } }

    func attach(_ mock: MockBluetoothd) { state.withLock { $0.mock = mock } }

    func resetController(index: Int) async throws(ControllerResetError) {
        let mock = state.withLock { state in
            state.calls.append(index)
            return state.mock
        }
        do {
            try await mock?.inject(.controllerReset(adapter: "hci\(index)"))
        } catch {
            throw ControllerResetError(index: index, code: EIO)
        }
    }
}

@Suite("Scan watchdog: the recovery ladder for a silent adapter")
struct ScanWatchdogTests {
    static let period = Duration.seconds(2).scaled

    /// Runs a monitor that finds no thermometer (so it scans all the time) among two devices
    /// that advertise, with a short `scan_watchdog`, and the reset stubbed.
    func withSilentAdapter(
        adapterReset: Bool, _ body: (MockFixture, ThermometerMonitor, ControllerResetStub) async throws -> Void
    ) async throws {
        let stub = ControllerResetStub()
        try await MockFixture.with(
            scenario: MockFixture.scenario(thermometers: 0, others: 2),
            options: CentralOptions(controllerReset: .custom(stub))
        ) { fixture in
            stub.attach(fixture.mock)
            var configuration = quickConfiguration()
            configuration.scanWatchdog = Self.period
            configuration.adapterReset = adapterReset
            let (monitor, _) = await startMonitor(fixture, configuration: configuration)
            // Devices are heard: from now on they are expected.
            #expect(await eventually { await fixture.central.hasHeardDevices })
            try await body(fixture, monitor, stub)
            await monitor.shutdown()
        }
    }

    /// Waits until the watchdog's status satisfies `condition`; fails with the last status if not.
    func status(
        of monitor: ThermometerMonitor, within deadline: Duration = .seconds(30),
        _ condition: @escaping @Sendable (RecoveryLadderStatus) -> Bool
    ) async throws -> RecoveryLadderStatus {
        let met = await eventually(within: deadline) {
            guard let status = await monitor.scanWatchdogStatus else { return false }
            return condition(status)
        }
        let status = try #require(await monitor.scanWatchdogStatus)
        #expect(met, "status: \(status)")
        return status
    }

    @Test("a silence that a restart of discovery cures is cured by step 1 alone")
    func restartCures() async throws {
        try await withSilentAdapter(adapterReset: true) { fixture, monitor, stub in
            try await fixture.mock.inject(.silence(adapter: "hci0", cure: .restartDiscovery))
            let status = try await self.status(of: monitor) { $0.recoveries == 1 }
            #expect(status.steps == [.restartDiscovery: 1])
            #expect(status.lastRecoveredBy == .restartDiscovery)
            #expect(!status.silent)
            #expect(stub.calls.isEmpty)
        }
    }

    @Test("a silence that only a power cycle cures: step 1, then step 2 through Adapter1.Powered")
    func powerCycleCures() async throws {
        try await withSilentAdapter(adapterReset: true) { fixture, monitor, stub in
            try await fixture.mock.inject(.silence(adapter: "hci0", cure: .powerCycle))
            let status = try await self.status(of: monitor) { $0.recoveries == 1 }
            #expect(status.steps == [.restartDiscovery: 1, .powerCycle: 1])
            #expect(status.lastRecoveredBy == .powerCycle)
            #expect(stub.calls.isEmpty)
            // Discovery runs again on the adapter that came back, and hears the devices.
            #expect(await eventually { await fixture.central.isScanning })
        }
    }

    @Test("a silence only the HCI reset cures: step 3, through the libbluetooth boundary, with adapter_reset")
    func controllerResetCures() async throws {
        try await withSilentAdapter(adapterReset: true) { fixture, monitor, stub in
            try await fixture.mock.inject(.silence(adapter: "hci0", cure: .controllerReset))
            let status = try await self.status(of: monitor) { $0.recoveries == 1 }
            #expect(status.steps == [.restartDiscovery: 1, .powerCycle: 1, .resetController: 1])
            #expect(status.lastRecoveredBy == .resetController)
            #expect(status.resetFailures == 0)
            #expect(stub.calls == [0])
        }
    }

    @Test("without adapter_reset the HCI reset is never called: the ladder starts over, backing off")
    func noResetWithoutPermission() async throws {
        try await withSilentAdapter(adapterReset: false) { fixture, monitor, stub in
            try await fixture.mock.inject(.silence(adapter: "hci0", cure: .controllerReset))
            // Round one (restart, power cycle), then round two at twice the wait.
            let started = ContinuousClock.now
            let status = try await self.status(of: monitor, within: .seconds(40)) {
                $0.steps[.restartDiscovery] == 2
            }
            #expect(status.steps[.powerCycle] == 1)
            #expect(status.steps[.resetController] == nil)
            #expect(status.silent)
            #expect(status.recoveries == 0)
            // Three waits: 2 s, 2 s, then 4 s (backed off), of silent discovery; without the
            // back-off, 6 s. Counted from the injection: the silence began at the advertisement
            // before it, up to the mock's advertising interval (1 s) earlier.
            #expect(ContinuousClock.now - started >= Self.period * 4 - .seconds(1))
            #expect(stub.calls.isEmpty)
            // The controller is reset by someone else: heard again, the ladder starts over.
            try await fixture.mock.inject(.controllerReset(adapter: "hci0"))
            let cured = try await self.status(of: monitor) { $0.recoveries == 1 }
            #expect(!cured.silent)
        }
    }

    @Test("a thermometer's readings return after a silence a power cycle cures")
    func readingsReturn() async throws {
        try await MockFixture.with(scenario: MockFixture.scenario(thermometers: 1, others: 0)) { fixture in
            var configuration = quickConfiguration()
            configuration.scanWatchdog = Self.period
            let (monitor, events) = await startMonitor(fixture, configuration: configuration)
            let pi = MockFixture.fahrenheitPi
            _ = try await events.first(reading(from: pi))
            try await fixture.mock.inject(.silence(adapter: "hci0", cure: .powerCycle))
            let mark = events.count
            // The link goes silent and is dropped; discovery hears nothing; the ladder climbs.
            _ = try await events.first(after: mark, within: .seconds(60), reading(from: pi))
            let status = try #require(await monitor.scanWatchdogStatus)
            #expect(status.steps[.powerCycle] == 1)
            #expect(status.steps[.resetController] == nil)
            await monitor.shutdown()
        }
    }

    @Test("the ladder's waits: one period per step, doubled each round, capped")
    func ladderWaits() {
        var ladder = RecoveryLadder(period: .seconds(90), adapterReset: false)
        var waits: [Duration] = []
        for _ in 0..<14 {
            waits.append(ladder.wait)
            _ = ladder.takeStep()
        }
        #expect(
            waits.prefix(6) == [.seconds(90), .seconds(90), .seconds(180), .seconds(180), .seconds(360), .seconds(360)])
        #expect(waits.last == .seconds(90 * RecoveryLadder.maxBackoff))
        #expect(ladder.heard() == .powerCycle)
        #expect(ladder.wait == .seconds(90))
        #expect(ladder.heard() == nil)
    }
}

@Suite("The silence clock")
struct SilenceClockTests {
    @Test("counts only discovery time, from the last sound, across stretches")
    func discoveryTimeOnly() {
        let start = ContinuousClock.now
        var clock = SilenceClock()
        clock.discovery(true, at: start)
        clock.discovery(false, at: start + .seconds(3))
        // Discovery off: time passes uncounted.
        #expect(clock.silentDiscovery(at: start + .seconds(60)) == .seconds(3))
        clock.discovery(true, at: start + .seconds(60))
        #expect(clock.silentDiscovery(at: start + .seconds(65)) == .seconds(8))
        #expect(!clock.heardAny)
        clock.heard()
        #expect(clock.heardAny)
        #expect(clock.silentDiscovery(at: .now) < .seconds(1))
        clock.discovery(false, at: .now)
        clock.restart(at: .now)
        #expect(clock.silentDiscovery(at: .now + .seconds(10)) == .zero)
    }
}
