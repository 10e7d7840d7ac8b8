@testable import Daemon
import Foundation
import SensorModel
import Testing
import UnixSupport

@Suite("The host CPU source")
struct HostCPUSourceTests {
    /// A fake /sys/class/thermal with zones of the given types and temperatures.
    static func withZones(_ zones: [(type: String, temp: String)], _ body: (String) throws -> Void) throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("blectl-thermal-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        for (index, zone) in zones.enumerated() {
            let directory = root + "/thermal_zone\(index)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try (zone.type + "\n").write(toFile: directory + "/type", atomically: true, encoding: .utf8)
            try (zone.temp + "\n").write(toFile: directory + "/temp", atomically: true, encoding: .utf8)
        }
        try body(root)
    }

    @Test("auto picks the CPU's zone, else the first; a directory is taken as given")
    func zoneChoice() throws {
        try Self.withZones([("acpitz", "27800"), ("x86_pkg_temp", "48312")]) { root in
            #expect(ThermalZone.find("auto", root: root)?.directory == root + "/thermal_zone1")
            #expect(ThermalZone.find(root + "/thermal_zone0", root: root)?.type == "acpitz")
            #expect(ThermalZone.find(root + "/nothing", root: root) == nil)
        }
        try Self.withZones([("acpitz", "27800"), ("wifi", "40000")]) { root in
            #expect(ThermalZone.find("auto", root: root)?.directory == root + "/thermal_zone0")
        }
        #expect(ThermalZone.find("auto", root: "/nonexistent") == nil)
    }

    @Test("millidegrees become °C to 0.01 with the text kept; garbage and absurd values are reading errors")
    func reading() throws {
        try Self.withZones([("cpu-thermal", "48312"), ("cpu-thermal", "hot"), ("cpu-thermal", "250000")]) { root in
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
