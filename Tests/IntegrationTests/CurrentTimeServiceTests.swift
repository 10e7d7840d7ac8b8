import Foundation
import TestSupport
import Testing

/// A Pi thermometer offering the Current Time Service (`blectl-mock --current-time`): blectld
/// reads its clock when it connects, records the drift and sets the clock when the gateway's
/// clock is synchronised (docs/sensor-memory.md, "Current Time Service").
@Suite("Current Time Service: a GATT thermometer's clock read and set")
struct CurrentTimeServiceIntegrationTests {
    static let thermometer = "DC:A6:32:00:00:01"

    /// The thermometer's `sensor_memory` entry in `status` once it has `key` (`clock_result`).
    static func clockEntry(_ fixture: DaemonFixture, once key: String = "clock_result") async throws -> [String: Any] {
        var entry: [String: Any] = [:]
        _ = await eventually(within: .seconds(20)) {
            guard let status = try? await fixture.blectl(["status", "--json"]),
                let object = ChildProcessLines.parse(status.output),
                let entries = object["sensor_memory"] as? [[String: Any]],
                let found = entries.first(where: { $0["address"] as? String == thermometer }),
                found[key] != nil, !(found[key] is NSNull)
            else { return false }
            entry = found
            return true
        }
        return entry
    }

    static func options(_ extra: String) -> String {
        "--fast --notify-interval 200ms --thermometers 1 --others 0 --advertisers 0 --current-time 120 " + extra
    }

    @Test("the drift is read (120 s ahead) and the clock set when the gateway's clock is synchronised")
    func setsTheClock() async throws {
        try await DaemonFixture.with(
            mockOptions: Self.options("--current-time-drift 0"),
            environment: ["BLECTL_MOCK_CLOCK_SYNCHRONIZED": "yes"]
        ) { fixture in
            let entry = try await Self.clockEntry(fixture)
            #expect(entry["clock_result"] as? String == "set", "\(entry)")
            #expect(abs((entry["clock_drift_seconds"] as? Int ?? 0) - 120) <= 2, "\(entry)")
            #expect(entry["clock_set"] as? String != nil, "\(entry)")
            #expect(entry["downloads"] as? Int == 0, "\(entry)")
            let table = try await fixture.blectl(["status"])
            #expect(table.output.contains(Self.thermometer), "\(table.output)")
        }
    }

    @Test("a refused write is logged and reported, and the thermometer streams on")
    func refusedWrite() async throws {
        try await DaemonFixture.with(
            mockOptions: Self.options("--current-time-refused 1000"),
            environment: ["BLECTL_MOCK_CLOCK_SYNCHRONIZED": "yes"]
        ) { fixture in
            let entry = try await Self.clockEntry(fixture)
            #expect((entry["clock_result"] as? String)?.hasPrefix("refused") == true, "\(entry)")
            #expect(abs((entry["clock_drift_seconds"] as? Int ?? 0) - 120) <= 2, "\(entry)")
            #expect(entry["clock_set"] is NSNull || entry["clock_set"] == nil, "\(entry)")
            try await fixture.waitForConnected(1)
            let read = try await fixture.blectl(["read", Self.thermometer, "--json"])
            #expect(read.status == 0, "\(read.errors)")
            let log = fixture.daemon.log()
            #expect(log.contains("setting its clock failed"), "\(log)")
        }
    }

    @Test("sensor_clock_sync ADDRESS = off: the drift is read, nothing is written, whatever the global setting")
    func offForTheDevice() async throws {
        try await DaemonFixture.with(
            mockOptions: Self.options("--current-time-drift 0"),
            configuration: "sensor_clock_sync = daily\nsensor_clock_sync \(Self.thermometer) = off\n",
            environment: ["BLECTL_MOCK_CLOCK_SYNCHRONIZED": "yes"]
        ) { fixture in
            let entry = try await Self.clockEntry(fixture, once: "clock_drift_seconds")
            #expect(abs((entry["clock_drift_seconds"] as? Int ?? 0) - 120) <= 2, "\(entry)")
            #expect(entry["clock_result"] is NSNull || entry["clock_result"] == nil, "\(entry)")
            #expect(entry["clock_set"] is NSNull || entry["clock_set"] == nil, "\(entry)")
            #expect(!fixture.daemon.log().contains("clock set"))
        }
    }

    @Test("in a zone 5 h 30 ahead of UTC the clock is read and set as local time, the zone written beside it")
    func localTime() async throws {
        // A POSIX TZ string: no tzdata needed. The mock's clock shows local time, 120 s ahead.
        try await DaemonFixture.with(
            mockOptions: Self.options("--current-time-drift 0"),
            environment: ["BLECTL_MOCK_CLOCK_SYNCHRONIZED": "yes", "TZ": "IST-5:30"]
        ) { fixture in
            let entry = try await Self.clockEntry(fixture)
            #expect(entry["clock_result"] as? String == "set", "\(entry)")
            #expect(abs((entry["clock_drift_seconds"] as? Int ?? 0) - 120) <= 2, "\(entry)")
            let log = fixture.daemon.log()
            #expect(log.contains("Local Time Information set (UTC offset 19800 s)"), "\(log)")
        }
    }

    @Test("an unsynchronised gateway clock: the drift is read, nothing is written")
    func unsynchronized() async throws {
        try await DaemonFixture.with(
            mockOptions: Self.options(""), environment: ["BLECTL_MOCK_CLOCK_SYNCHRONIZED": "no"]
        ) { fixture in
            let entry = try await Self.clockEntry(fixture)
            #expect(entry["clock_result"] as? String == "gateway-unsynchronized", "\(entry)")
            #expect(abs((entry["clock_drift_seconds"] as? Int ?? 0) - 120) <= 2, "\(entry)")
            #expect(entry["clock_set"] is NSNull || entry["clock_set"] == nil, "\(entry)")
        }
    }
}
