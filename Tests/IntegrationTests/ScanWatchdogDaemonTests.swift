import DBusCore
import Foundation
import TestSupport
import Testing

/// The scan watchdog end to end: `blectld --mock` with a short `scan_watchdog`, its mock's
/// controller silenced, `blectl status` showing the ladder's steps.
@Suite("blectld's scan watchdog on the mock adapter")
struct ScanWatchdogDaemonTests {
    /// `blectl status --json`'s `scan_watchdog` object.
    func watchdog(_ fixture: DaemonFixture) async throws -> [String: Any]? {
        let status = try await fixture.blectl(["status", "--json"])
        return ChildProcessLines.parse(status.output)?["scan_watchdog"] as? [String: Any]
    }

    @Test(
        "a controller only a reset cures: restart, power cycle, then the reset (adapter_reset = yes); readings return")
    func controllerReset() async throws {
        try await DaemonFixture.with(configuration: "scan_watchdog = 2s\nadapter_reset = yes\n") { fixture in
            try await fixture.waitForConnected(2)
            let before = try #require(try await watchdog(fixture))
            #expect(before["silent"] as? Bool == false && before["recoveries"] as? Int == 0)
            #expect(before["period_seconds"] as? Double == 2 && before["adapter_reset"] as? Bool == true)
            try await fixture.inject("silence", [("cure", .string("controller-reset"))])
            var last: [String: Any]?
            let recovered = await eventually(within: .seconds(60)) {
                last = try? await watchdog(fixture)
                return last?["recoveries"] as? Int == 1
            }
            #expect(recovered, "\(last ?? [:])\n\(fixture.daemon.log())")
            #expect(last?["discovery_restarts"] as? Int == 1)
            #expect(last?["power_cycles"] as? Int == 1)
            #expect(last?["controller_resets"] as? Int == 1)
            #expect(last?["controller_reset_failures"] as? Int == 0)
            #expect(last?["last_recovered_by"] as? String == "reset_controller")
            try await fixture.waitForConnected(2, within: .seconds(30))
            let text = try await fixture.blectl(["status"])
            #expect(text.output.contains("Scan watchdog:"), "\(text.output)")
            #expect(text.output.contains("1 discovery restart, 1 power cycle, 1 controller reset"), "\(text.output)")
            let log = fixture.daemon.log()
            #expect(log.contains("restarting discovery (step 1 of 3)"))
            #expect(log.contains("resetting the controller (HCI down, up) (step 3 of 3)"))
        }
    }

    @Test("scan_watchdog = off: no watchdog in status")
    func off() async throws {
        try await DaemonFixture.with(configuration: "scan_watchdog = off\n") { fixture in
            let status = try await fixture.blectl(["status", "--json"])
            let object = try #require(ChildProcessLines.parse(status.output))
            #expect(object["scan_watchdog"] == nil || object["scan_watchdog"] is NSNull)
            #expect(!(try await fixture.blectl(["status"])).output.contains("Scan watchdog"))
        }
    }
}
