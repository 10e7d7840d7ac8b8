import Central
import MockBlueZ
import DBusCore
import TestSupport
import SensorModel
import ConcurrencySupport
import UnixSupport

/// A private bus with the mock adapter on it and a central connected to it;
/// everything is stopped when the body returns or throws.
struct MockFixture {
    let bus: PrivateBus
    let mock: MockBluetoothd
    let central: CentralManager

    static let fahrenheitPi = "DC:A6:32:00:00:01"
    static let celsiusPi = "DC:A6:32:00:00:02"

    /// A quick world: notifications every 200 ms and short BlueZ delays.
    static func scenario(thermometers: Int = 2, others: Int = 2) -> MockScenario {
        var scenario = MockScenario.standard(thermometers: thermometers, others: others)
        scenario.notifyInterval = .milliseconds(200)
        scenario.timings = .fast
        return scenario
    }

    static func with(
        scenario: MockScenario = scenario(), options: CentralOptions = CentralOptions(),
        _ body: (MockFixture) async throws -> Void
    ) async throws {
        try await withPrivateBus { bus in
            let mock = try await MockBluetoothd.start(address: bus.address, scenario: scenario)
            do {
                let central = try await CentralManager.connect(
                    to: .address(bus.address), options: options, diagnostics: { print("diagnostic:", $0) })
                try await body(MockFixture(bus: bus, mock: mock, central: central))
                await central.close()
                await mock.stop()
            } catch {
                await mock.stop()
                throw error
            }
        }
    }
}

/// Collects what a monitor reports, and waits for what a test expects.
final class EventLog: Sendable {
    private struct State {
        var events: [SensorEvent] = []
        var waiters: [Int: (SensorEvent) -> Bool] = [:]
        var nextWaiter = 0
    }
    private let state = Locked(State())  // not Mutex: ThreadSanitizer can't see its futexes

    func record(_ event: SensorEvent) {
        state.withLock { state in
            state.events.append(event)
            for (id, waiter) in state.waiters where waiter(event) { state.waiters[id] = nil }
        }
    }

    /// Everything reported so far.
    var all: [SensorEvent] { state.withLock { $0.events } }
    /// How many events were reported so far (a mark for ``first(after:within:_:)``).
    var count: Int { state.withLock { $0.events.count } }

    /// The first event at index `mark` or later that `match` accepts, waiting up to `timeout`.
    func first<T: Sendable>(
        after mark: Int = 0, within timeout: Duration = .seconds(20),
        _ match: @escaping @Sendable (SensorEvent) -> T?
    ) async throws -> T {
        try await withTimeout(timeout) {
            await withCheckedContinuation { continuation in
                self.state.withLock { state in
                    for event in state.events.dropFirst(mark) {
                        if let value = match(event) { return continuation.resume(returning: value) }
                    }
                    state.nextWaiter += 1
                    state.waiters[state.nextWaiter] = { event in
                        guard let value = match(event) else { return false }
                        continuation.resume(returning: value)
                        return true
                    }
                }
            }
        }
    }
}

/// A reading from `address`, as a match for ``EventLog/next(within:_:)``.
func reading(from address: String) -> @Sendable (SensorEvent) -> Measurement? {
    { event in
        guard case .reading(let from, _, let reading) = event, from.description == address else { return nil }
        return reading
    }
}

/// A monitor over the fixture's central, reporting into a new log.
func startMonitor(
    _ fixture: MockFixture, configuration: ThermometerConfiguration = quickConfiguration()
) async -> (ThermometerMonitor, EventLog) {
    let log = EventLog()
    let monitor = ThermometerMonitor(
        central: fixture.central, configuration: configuration, log: Log(level: .warning)
    ) { log.record($0) }
    await monitor.start()
    return (monitor, log)
}

/// Short deadlines to match the quick world.
func quickConfiguration() -> ThermometerConfiguration {
    ThermometerConfiguration(
        reconnect: ReconnectPolicy(initialDelay: .milliseconds(100), maximumDelay: .seconds(1)),
        connectTimeout: .seconds(3), dataTimeout: .seconds(2), serviceTimeout: .seconds(5),
        rescanInterval: .seconds(2), seenReportInterval: .seconds(1))
}
