import Foundation
import Glibc
import TestSupport
import Testing

/// The optional libraries are loaded when their feature is used, not at start (their resident
/// memory is the idle daemon's; docs/benchmarks.md): Nettle with a sensor key, libmosquitto with
/// `mqtt_url`, libmicrohttpd with `http_listen`.
extension CLITests {
    /// The shared objects `pid` has mapped, by file name (read with read(2): /proc files have no
    /// size for Foundation to read up to).
    static func mappedLibraries(of pid: Int32) -> Set<String> {
        let fd = open("/proc/\(pid)/maps", O_RDONLY)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        let names = String(decoding: bytes, as: UTF8.self).split(separator: "\n").compactMap { line in
            line.split(separator: "/").last.map(String.init)
        }
        return Set(names.filter { $0.contains(".so") })
    }

    @Test("no key, no MQTT, no HTTP: Nettle, libmosquitto and libmicrohttpd are not mapped")
    func optionalLibrariesStayUnloaded() async throws {
        try await DaemonFixture.with(mockOptions: Self.advertiserOptions, configuration: "") { fixture in
            _ = try await Self.readAll(fixture, count: 5)
            let libraries = Self.mappedLibraries(of: fixture.daemon.pid)
            #expect(libraries.contains { $0.hasPrefix("libdbus-1.so") }, "\(libraries.sorted())")
            for optional in ["libnettle", "libmosquitto", "libmicrohttpd"] {
                #expect(!libraries.contains { $0.hasPrefix(optional) }, "\(optional) in \(libraries.sorted())")
            }
        }
    }

    @Test("a sensor key: Nettle is loaded, and the encrypted sensor is read")
    func nettleLoadsWithAKey() async throws {
        try await DaemonFixture.with(mockOptions: Self.advertiserOptions, configuration: Self.advertiserConfiguration) {
            fixture in
            let reports = try await Self.readAll(fixture, count: 6)
            #expect(reports.contains { $0["address"] as? String == "A4:C1:38:AD:00:02" && $0["celsius"] is Double })
            #expect(Self.mappedLibraries(of: fixture.daemon.pid).contains { $0.hasPrefix("libnettle") })
        }
    }
}
