@testable import Central
import MockBlueZ
import SensorModel
import TestSupport
import Testing

/// The connect-time read and the notification cputemp sends as notifications start carry
/// one measurement: it is reported once (issue 33: `history` showed it as #1 and #2).
@Suite("The connect-time read's echo")
struct ConnectEchoTests {
    static let read: [UInt8] = Array("117.1 F".utf8)

    @Test("the first value after the read, the same bytes within the window, is the echo; nothing after it is")
    func rule() {
        let start = ContinuousClock.now
        var echo = ConnectEcho()
        let read = echo.isEcho(Self.read, at: start)
        echo.notificationsStarted(at: start)
        let verdicts = [5, 10, 15].map { echo.isEcho(Self.read, at: start + .milliseconds($0)) }
        #expect(!read)
        #expect(verdicts == [true, false, false])
    }

    @Test("a different first value, or the same one after the window, is reported and ends the rule")
    func notEchoes() {
        let start = ContinuousClock.now
        var changed = ConnectEcho()
        _ = changed.isEcho(Self.read, at: start)
        changed.notificationsStarted(at: start)
        let afterChange = [
            changed.isEcho(Array("117.3 F".utf8), at: start + .milliseconds(5)),
            changed.isEcho(Self.read, at: start + .milliseconds(10)),
        ]
        #expect(afterChange == [false, false])
        var late = ConnectEcho()
        _ = late.isEcho(Self.read, at: start)
        late.notificationsStarted(at: start)
        let afterWindow = [1, 2].map { late.isEcho(Self.read, at: start + ConnectEcho.window + .milliseconds($0)) }
        #expect(afterWindow == [false, false])
        // A read asked for right after the connect reports its value, though it repeats.
        var asked = ConnectEcho()
        _ = asked.isEcho(Self.read, at: start)
        asked.notificationsStarted(at: start)
        asked.end()
        let askedRead = asked.isEcho(Self.read, at: start + .milliseconds(5))
        #expect(!askedRead)
    }

    @Test("on the mock's Pi (a constant temperature), one reading at connect, then every notification")
    func oneReadingAtConnect() async throws {
        var scenario = MockFixture.scenario(thermometers: 1, others: 0)
        scenario.notifyInterval = .seconds(600)  // only the StartNotify value and the bursts below
        try await MockFixture.with(scenario: scenario) { fixture in
            let pi = MockFixture.fahrenheitPi
            try await fixture.mock.setPattern(.constant, address: pi)
            var configuration = quickConfiguration()
            configuration.dataTimeout = .seconds(600)
            let (monitor, log) = await startMonitor(fixture, configuration: configuration)
            let readings = { log.all.compactMap(reading(from: pi)) }
            // The connect-time read and the value cputemp notifies as notifications start
            // have both reached the monitor: one reading.
            #expect(await eventually { await Self.valuesReceived(monitor) >= 2 })
            #expect(readings().count == 1, "\(readings().map(\.raw))")
            // Later notifications of the same value are all reported.
            #expect(try await fixture.mock.burst(address: pi, count: 3) == 3)
            #expect(await eventually { readings().count >= 4 })
            #expect(await Self.valuesReceived(monitor) == 5)
            await monitor.shutdown()
            #expect(readings().count == 4 && Set(readings().map(\.raw)).count == 1, "\(readings().map(\.raw))")
        }
    }

    /// Values the monitor's streams received, reported or not.
    private static func valuesReceived(_ monitor: ThermometerMonitor) async -> Int {
        await monitor.streams.values.reduce(0) { $0 + $1.received }
    }
}
