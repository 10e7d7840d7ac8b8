import BlectlProtocol
@testable import Daemon
import Synchronization
import Testing

/// Whether a piece of work has ended, for waiting on it with a deadline.
final class Completion: Sendable {
    private let done = Mutex(false)

    var isDone: Bool { done.withLock { $0 } }

    func finish() {
        done.withLock { $0 = true }
    }
}

/// A request's work in the hub ends when its task is cancelled (its client went away),
/// however long it would have waited. (`read`: SocketLimitsTests' vanishing clients.)
@Suite("Hub requests under cancellation")
struct HubCancellationTests {
    @Test("A cancelled scan request stops waiting at once; the scan goes on for the others")
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
        let scan = await hub.scanTask
        #expect(scan != nil)  // still running, for whoever joins it next
        scan?.cancel()
    }
}
