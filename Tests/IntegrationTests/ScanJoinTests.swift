import Foundation
import TestSupport
import Testing

@Suite("Scans that overlap")
struct ScanJoinTests {
    @Test("a second blectl scan during a long one returns at its own timeout with what was seen")
    func joinedScanReturnsInTime() async throws {
        try await DaemonFixture.with { fixture in
            try await fixture.waitForConnected(2)
            let long = Task { try await fixture.blectl(["scan", "--timeout", "40"], timeout: .seconds(60)) }
            // The long scan's window is open before the second scan asks.
            try await withTimeout(.seconds(10)) {
                while !fixture.daemon.log().contains("scan requested: discovery open for at least 40") {
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
            let start = ContinuousClock.now
            let short = try await fixture.blectl(["scan", "--timeout", "2", "--all"])
            let elapsed = ContinuousClock.now - start
            #expect(short.status == 0, "\(short.errors)")
            #expect(elapsed < Duration.seconds(20).scaled, "took \(elapsed), not the 40 s of the scan it joined")
            #expect(short.output.contains("DC:A6:32:00:00:01"))
            long.cancel()
        }
    }
}
