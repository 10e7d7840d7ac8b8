import Foundation
import TestSupport
import Testing

/// `calibrate` in blectld.conf, through the real daemon and `blectl`.
extension CLITests {
    @Test("calibrate: read --json shows the offset value beside the uncalibrated one, status names the offset")
    func calibration() async throws {
        try await DaemonFixture.with(configuration: "calibrate DC:A6:32:00:00:01 temperature = +1.5\n") { fixture in
            try await fixture.waitForConnected(2)
            let read = try await fixture.blectl(["read", "DC:A6:32:00:00:01", "--json", "--timeout", "15"])
            #expect(read.status == 0, "\(read.output)")
            let reports = try #require(
                try JSONSerialization.jsonObject(with: Data(read.output.utf8)) as? [[String: Any]])
            let report = try #require(reports.first)
            let celsius = try #require(report["celsius"] as? Double)
            let uncalibrated = try #require(report["uncalibrated"] as? [String: Any])
            let before = try #require(uncalibrated["celsius"] as? Double)
            #expect(abs(celsius - (before + 1.5)) < 0.006, "\(report)")
            #expect(uncalibrated.count == 1)

            let other = try await fixture.blectl(["read", "DC:A6:32:00:00:02", "--json", "--timeout", "15"])
            #expect(other.status == 0 && !other.output.contains("uncalibrated"), "\(other.output)")

            let status = try await fixture.blectl(["status"])
            #expect(status.status == 0)
            #expect(status.output.contains("DC:A6:32:00:00:01 temperature +1.5 °C"), "\(status.output)")
            let json = try await fixture.blectl(["status", "--json"])
            let object = try #require(
                try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any])
            let offsets = try #require(object["calibration"] as? [[String: Any]])
            #expect(offsets.count == 1 && offsets.first?["offset"] as? Double == 1.5)
            #expect(offsets.first?["quantity"] as? String == "temperature")
        }
    }
}
