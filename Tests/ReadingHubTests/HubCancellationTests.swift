import BlectlProtocol
@testable import ReadingHub
import Synchronization
import TestSupport
import Testing

/// A request's work in the hub ends when its task is cancelled (its client went away),
/// however long it would have waited. (`read`: SocketLimitsTests' vanishing clients.)
@Suite("Hub requests under cancellation")
struct HubCancellationTests {
    @Test("A cancelled scan request stops waiting at once")
    func scan() async {
        let central = FakeCentral()
        await central.script(scanTakes: .seconds(600))
        let hub = Hub(central: central)
        let completion = Completion()
        let request = Task {
            _ = try? await hub.scan(timeout: .seconds(120))
            completion.finish()
        }
        #expect(await eventually { await central.scans.count == 1 })
        request.cancel()
        #expect(await eventually { completion.isDone })
    }

    @Test("A scan request that joins a running scan returns at its own timeout")
    func joinedScan() async throws {
        let central = FakeCentral()
        await central.script(scanTakes: .seconds(600))
        let hub = Hub(central: central)
        // The longest scan there is, so that "its own timeout" stays far from it even when the
        // bound is scaled for a sanitizer.
        let long = Task { try await hub.scan(timeout: .seconds(120)) }
        #expect(await eventually { await central.scans.count == 1 })
        let start = ContinuousClock.now
        _ = try await hub.scan(timeout: .milliseconds(200))
        #expect(ContinuousClock.now - start < Duration.seconds(20).scaled, "not the 120 s of the scan it joined")
        #expect(await central.scans == [.seconds(120), .milliseconds(200)])
        long.cancel()
    }
}
