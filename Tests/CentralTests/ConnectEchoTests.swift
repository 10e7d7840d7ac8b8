@testable import Central
import MockBlueZ
import SensorModel
import TestSupport
import Testing
import UnixSupport

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
    }

    @Test("on the mock's Pi (a constant temperature), one reading at connect, then every notification")
    func oneReadingAtConnect() async throws {
        var scenario = MockFixture.scenario(thermometers: 1, others: 0)
        scenario.notifyInterval = .milliseconds(400)
        try await MockFixture.with(scenario: scenario) { fixture in
            let pi = MockFixture.fahrenheitPi
            try await fixture.mock.setPattern(.constant, address: pi)
            let arrivals = Locked<[(ContinuousClock.Instant, Measurement)]>([])
            let monitor = ThermometerMonitor(
                central: fixture.central, configuration: quickConfiguration(), log: Log(level: .warning)
            ) { event in
                if let reading = reading(from: pi)(event) { arrivals.withLock { $0.append((.now, reading)) } }
            }
            await monitor.start()
            // The read, then (the echo dropped) two periodic notifications of the same value.
            #expect(await eventually { arrivals.withLock { $0.count >= 3 } })
            await monitor.shutdown()
            let readings = arrivals.withLock { $0 }
            #expect(Set(readings.map(\.1.raw)).count == 1, "a constant temperature: \(readings.map(\.1.raw))")
            // Without the rule the echo came a few milliseconds after the read; the next
            // notification is 400 ms after the echo.
            let gaps = zip(readings, readings.dropFirst()).map { $1.0 - $0.0 }
            #expect(gaps.prefix(2).allSatisfy { $0 >= .milliseconds(200) }, "gaps: \(gaps)")
        }
    }
}
