import DBusCore
import Foundation
import TestSupport
import Testing

/// What blectl says when bluetoothd is not there (issue: a blank adapter name,
/// `adapter  is unsupported`, `"adapter":""`, "no thermometer connected within 2 s").
@Suite("bluetoothd absent")
struct BluetoothAbsentTests {
    @Test("status, scan and read say bluetoothd is not running; JSON has a null adapter and the reason")
    func bluetoothdAbsent() async throws {
        try await DaemonFixture.with { fixture in
            try await fixture.waitForConnected(2)
            try await fixture.inject("bluetoothd-stop")
            let said = "bluetoothd is not running"
            var status = try await fixture.blectl(["status"])
            let deadline = ContinuousClock.now + .seconds(20)
            while !status.output.contains(said), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
                status = try await fixture.blectl(["status"])
            }
            #expect(status.output.contains("Adapter:") && status.output.contains(said), "\(status.output)")
            let json = try await fixture.blectl(["status", "--json"])
            let object = try #require(ChildProcessLines.parse(json.output))
            #expect(object["adapter"] is NSNull, "\(json.output)")
            #expect((object["reason"] as? String)?.contains(said) == true)
            let scan = try await fixture.blectl(["scan", "--timeout", "1"])
            #expect(scan.status == 3 && scan.errors.contains(said), "\(scan.status) \(scan.errors)")
            let read = try await fixture.blectl(["read", "--timeout", "1"])
            #expect(read.status != 0)
            #expect(read.errors.contains(said) || read.output.contains(said), "\(read.output) \(read.errors)")
        }
    }
}
