import DBusCore
import Foundation
import TestSupport
import Testing

@Suite("blectld stops in time")
struct ShutdownTests {
    @Test("SIGTERM while BlueZ answers none of the clean-up calls: exit 0 in seconds, not 45, socket removed")
    func sigtermWithSilentBlueZ() async throws {
        try await DaemonFixture.with { fixture in
            try await fixture.waitForConnected(2)
            let never: [(String, DBusValue)] = [
                ("delay_ms", .int32(600_000)),
                (
                    "methods",
                    .array(element: "s", [.string("StopNotify"), .string("Disconnect"), .string("StopDiscovery")])
                ),
            ]
            try await fixture.inject("slow-replies", never)
            let start = ContinuousClock.now
            fixture.daemon.signal(SIGTERM)
            let status = await fixture.daemon.waitForExit(timeout: .seconds(20))
            let elapsed = ContinuousClock.now - start
            #expect(status == 0)
            // The 3 s clean-up bound, then closing the history and stopping the mock stack (seconds
            // on a loaded machine); far below the 45 s of the unanswered calls' timeouts.
            #expect(elapsed < Duration.seconds(15).scaled, "stopped after \(elapsed)")
            #expect(fixture.daemon.log().contains("did not answer the clean-up"))
            #expect(!FileManager.default.fileExists(atPath: fixture.socket))
        }
    }
}
