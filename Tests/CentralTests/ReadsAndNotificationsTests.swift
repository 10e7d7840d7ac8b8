import Central
import MockBlueZ
import SensorModel
import TestSupport
import Testing

/// A read of a characteristic and the notifications on it, at once (issue: a notification
/// that arrived while a read ran was dropped, and a late read reply was stored after newer
/// values).
@Suite("Reads during notifications")
struct ReadsAndNotificationsTests {
    @Test("every notification that arrives during a read is reported, and values never step back")
    func notificationsDuringReads() async throws {
        var scenario = MockFixture.scenario(thermometers: 2, others: 0)
        scenario.notifyInterval = .milliseconds(10)
        try await MockFixture.with(scenario: scenario) { fixture in
            let pi = MockFixture.celsiusPi  // °C text: the counter's 0.1 °C steps stay exact
            try await fixture.mock.setPattern(.counter, address: pi)
            let (monitor, log) = await startMonitor(fixture)
            _ = try await log.first(reading(from: pi))
            // Each read takes 60 ms: about six notifications arrive while it runs.
            try await fixture.mock.inject(.slowReplies(delay: .milliseconds(60), times: nil, methods: ["ReadValue"]))
            let mark = log.count
            let reads = try await Self.readRepeatedly(monitor, try #require(BluetoothAddress(pi)))
            await monitor.shutdown()
            let values = log.all.dropFirst(mark).compactMap { reading(from: pi)($0)?.celsius }
            #expect(reads >= 10)
            var steps: [Double: Int] = [:]
            for (earlier, later) in zip(values, values.dropFirst()) {
                // The counter steps 0.1 °C per notification and wraps from 65.0 to 40.0; a read
                // (or its echo) repeats the current value.
                let step = ((later - earlier) * 10).rounded() / 10
                steps[step == -25 ? 0.1 : step, default: 0] += 1
            }
            #expect(Set(steps.keys).isSubset(of: [0, 0.1]), "steps seen: \(steps)")
            #expect((steps[0] ?? 0) <= reads, "at most one repeated value per read")
            // Notifications came while the reads ran (each read takes six notification periods).
            #expect((steps[0.1] ?? 0) >= reads, "steps seen: \(steps) in \(reads) reads")
        }
    }

    /// Reads for at least 2 s and 10 reads (a loaded machine makes reads slow), at most 30 s;
    /// returns how many.
    private static func readRepeatedly(_ monitor: ThermometerMonitor, _ address: BluetoothAddress) async throws -> Int {
        var reads = 0
        let end = ContinuousClock.now + .seconds(2)
        let limit = ContinuousClock.now + Duration.seconds(30).scaled
        while ContinuousClock.now < end || (reads < 10 && ContinuousClock.now < limit) {
            try await monitor.readNow(address)
            reads += 1
        }
        return reads
    }
}
