import BlueZClient
@testable import Central
import ConcurrencySupport
import Glibc
import MockBlueZ
import SensorModel
import TestSupport
import Testing
import UnixSupport

/// The advertisement monitor fed by the kernel's management socket (`advert_source = mgmt`,
/// issue 37): recorded Device Found events written into one end of a socket pair stand in
/// for the kernel, the mock's sensors keep advertising through D-Bus beside them.
@Suite("Advertisements from the management socket, into the advertisement monitor")
struct ManagementSourceTests {
    /// A Device Found event (doc/mgmt-api.txt) of a BTHome v2 sensor: packet id, battery,
    /// temperature 22.50 °C, humidity 50.55 %.
    static func bthome(index: UInt16, address: String, packet: UInt8) -> [UInt8] {
        let serviceData: [UInt8] = [0xD2, 0xFC, 0x40, 0x00, packet, 0x01, 0x5A, 0x02, 0xCA, 0x08, 0x03, 0xBF, 0x13]
        let data: [UInt8] = [0x02, 0x01, 0x06, UInt8(serviceData.count + 1), 0x16] + serviceData
        let address = BluetoothAddress(address)!.bytes.reversed()
        let parameters = Array(address) + [0x01, UInt8(bitPattern: -55), 0, 0, 0, 0, UInt8(data.count), 0] + data
        return [0x12, 0x00, UInt8(index), UInt8(index >> 8), UInt8(parameters.count), 0] + parameters
    }

    static func write(_ fd: Int32, _ event: [UInt8]) {
        #expect(event.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) } == event.count)
    }

    @Test(
        "readings come from the socket's events on the adapter's controller, not from D-Bus; a garbage event is one error"
    )
    func readingsFromTheSocket() async throws {
        try await MockFixture.with(scenario: AdvertisementFixture.scenario(advertisers: 1)) { fixture in
            let (adverts, monitor, log) = await AdvertisementFixture.start(fixture)
            let dbusSensor = AdvertisementFixture.address(0)
            _ = try await log.first(within: .seconds(10), reading(from: dbusSensor))
            var fds: [Int32] = [0, 0]
            #expect(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0, &fds) == 0)
            defer { close(fds[1]) }
            let central = fixture.central
            await central.listen(to: ManagementSocket.adopting(descriptor: fds[0]), log: Log(level: .error))
            await central.reportManagementAdvertisements(true)
            #expect(await central.reportsManagementAdvertisements)
            // hci0 is the mock's adapter: read. hci7 is no adapter in use: dropped. Between them garbage.
            Self.write(fds[1], Self.bthome(index: 7, address: "C0:FF:EE:00:00:02", packet: 1))
            Self.write(fds[1], [0x12, 0x00, 0x00, 0x00, 0x40, 0x00, 0x01])
            Self.write(fds[1], Self.bthome(index: 0, address: "C0:FF:EE:00:00:01", packet: 1))
            let measurement = try await log.first(within: .seconds(10), reading(from: "C0:FF:EE:00:00:01"))
            #expect(measurement.profile == "bthome")
            #expect(abs((measurement.celsius ?? 0) - 22.5) < 0.01)
            #expect(abs((measurement.quantities[.humidity] ?? 0) - 50.55) < 0.01)
            // The same packet again is a duplicate (the monitor's own dedup), the next one a reading.
            let mark = log.count
            Self.write(fds[1], Self.bthome(index: 0, address: "C0:FF:EE:00:00:01", packet: 1))
            Self.write(fds[1], Self.bthome(index: 0, address: "C0:FF:EE:00:00:01", packet: 2))
            _ = try await log.first(after: mark, within: .seconds(10), reading(from: "C0:FF:EE:00:00:01"))
            #expect(log.all.dropFirst(mark).compactMap(reading(from: "C0:FF:EE:00:00:01")).count == 1)
            #expect(await central.managementErrors == 1)
            // The D-Bus sensor (a new measurement every 200 ms) is not heard through D-Bus now.
            let silentFrom = log.all.compactMap(reading(from: dbusSensor)).count
            try await central.executor.sleep(for: .seconds(1))
            #expect(log.all.compactMap(reading(from: dbusSensor)).count == silentFrom)
            #expect(
                !log.all.contains {
                    if case .reading(let from, _, _) = $0 { from.description == "C0:FF:EE:00:00:02" } else { false }
                })
            // Back to D-Bus (as when scanning goes passive): the D-Bus sensor is read again.
            await central.reportManagementAdvertisements(false)
            let back = log.count
            _ = try await log.first(after: back, within: .seconds(10), reading(from: dbusSensor))
            await AdvertisementFixture.stop(adverts, monitor)
            #expect(await !central.isListeningToManagementSocket)
        }
    }

    @Test(
        "advert_source = mgmt without a socket that opens fails to start; auto falls back to D-Bus",
        .enabled(
            if: (try? ManagementSocket.open()) == nil,
            "the management socket opens on this machine (Bluetooth in the kernel and CAP_NET_ADMIN)"))
    func openingFails() async throws {
        try await MockFixture.with(scenario: AdvertisementFixture.scenario(advertisers: 1)) { fixture in
            var configuration = AdvertisementFixture.configuration()
            configuration.source = .mgmt
            let strict = AdvertisingSensorMonitor(
                central: fixture.central, configuration: configuration, log: Log(level: .error)
            ) { _ in }
            await #expect(throws: CentralError.self) { try await strict.openSource() }
            configuration.source = .auto
            let lenient = AdvertisingSensorMonitor(
                central: fixture.central, configuration: configuration, log: Log(level: .error)
            ) { _ in }
            try await lenient.openSource()
            #expect(await !fixture.central.isListeningToManagementSocket)
        }
    }
}
