@testable import Daemon
import Foundation
import SensorModel
import TestSupport
import Testing
import ConcurrencySupport
import UnixSupport

@Suite("The host CPU source")
struct HostCPUSourceTests {
    /// A fake /sys/class/thermal with zones of the given types and temperatures.
    static func withZones(_ zones: [(type: String, temp: String)], _ body: (String) async throws -> Void)
        async throws
    {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("blectl-thermal-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        for (index, zone) in zones.enumerated() {
            let directory = root + "/thermal_zone\(index)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try (zone.type + "\n").write(toFile: directory + "/type", atomically: true, encoding: .utf8)
            try (zone.temp + "\n").write(toFile: directory + "/temp", atomically: true, encoding: .utf8)
        }
        try await body(root)
    }

    @Test("auto picks the CPU's zone, else the first; a directory is taken as given")
    func zoneChoice() async throws {
        try await Self.withZones([("acpitz", "27800"), ("x86_pkg_temp", "48312")]) { root in
            #expect(ThermalZone.find("auto", root: root)?.directory == root + "/thermal_zone1")
            #expect(ThermalZone.find(root + "/thermal_zone0", root: root)?.type == "acpitz")
            #expect(ThermalZone.find(root + "/nothing", root: root) == nil)
        }
        try await Self.withZones([("acpitz", "27800"), ("wifi", "40000")]) { root in
            #expect(ThermalZone.find("auto", root: root)?.directory == root + "/thermal_zone0")
        }
        #expect(ThermalZone.find("auto", root: "/nonexistent") == nil)
    }

    @Test("millidegrees become °C to 0.01 with the text kept; garbage and absurd values are reading errors")
    func reading() async throws {
        try await Self.withZones([("cpu-thermal", "48312"), ("cpu-thermal", "hot"), ("cpu-thermal", "250000")]) {
            root in
            let good = try ThermalZone.find(root + "/thermal_zone0", root: root)!.read().get()
            #expect(good.celsius == 48.31 && good.raw == "48312" && good.profile == "host-cpu")
            #expect(throws: ReadingError.self) {
                try ThermalZone.find(root + "/thermal_zone1", root: root)!.read().get()
            }
            let absurd = ThermalZone.find(root + "/thermal_zone2", root: root)!.read()
            guard case .failure(let error) = absurd else { Issue.record("250 °C read as \(absurd)"); return }
            #expect(error.kind == .outOfRange && error.raw == Array("250000".utf8))
        }
    }

    @Test("as a sensor source: nothing before start, a reading at start and every interval, none after shutdown")
    func source() async throws {
        try await Self.withZones([("cpu-thermal", "48312")]) { root in
            let loop = EventLoop(label: "test-host-cpu")
            let events = Locked<[SensorEvent]>([])
            let interval = Duration.milliseconds(20)
            let made = HostCPUSource.make(
                zone: root + "/thermal_zone0", interval: interval, executor: loop, log: Log(sink: LogRecorder().sink),
                report: { event in events.withLock { $0.append(event) } })
            let source: any SensorSource = try #require(made)
            #expect(source.sourceName == "host CPU")
            #expect(events.withLock(\.count) == 0)
            await source.start()
            #expect(events.withLock(\.count) >= 1, "the first reading at once")
            #expect(await eventually { events.withLock(\.count) >= 3 })
            await source.shutdown()
            let stopped = events.withLock(\.count)
            // The loop runs timers in deadline order: one set three intervals later has fired
            // after any the source could still have had.
            let quiet = try await nothingHappened(
                before: "a timer on the source's loop three intervals after the shutdown",
                reached: {
                    try await loop.sleep(for: interval * 3)
                    return true
                }
            ) { events.withLock(\.count) != stopped }
            #expect(quiet)
            guard case .reading(_, let name, let measurement) = events.withLock(\.[0]) else {
                Issue.record("not a reading: \(events.withLock(\.[0]))")
                return
            }
            #expect(measurement.celsius == 48.31 && name?.hasSuffix(" CPU") == true)
        }
    }

    @Test("the address: machine-id's first six bytes, locally administered and unicast; a fixed one without it")
    func address() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("machine-id-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: file) }
        try "3d1219c7c4c5404aaa1f6d2a48adfda4\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(HostCPUSource.machineAddress(machineID: file).description == "3E:12:19:C7:C4:C5")
        try "ffffffffffff404aaa1f6d2a48adfda4\n".write(toFile: file, atomically: true, encoding: .utf8)
        #expect(HostCPUSource.machineAddress(machineID: file).description == "FE:FF:FF:FF:FF:FF")
        #expect(HostCPUSource.machineAddress(machineID: "/nonexistent").description == "02:00:00:00:00:01")
    }
}
