import BlueZClient
@testable import Central
@testable import MockBlueZ
import SensorModel
import Testing
import UnixSupport

/// Advertisements handed to the monitor as the central passes them on, one by one.
@Suite("Advertising sensors: bad and hostile input")
struct AdvertisementBadInputTests {
    static let bthome = "0000fcd2-0000-1000-8000-00805f9b34fb"
    static let environmental = "0000181a-0000-1000-8000-00805f9b34fb"

    /// A monitor over a central on an empty mock world, and the events it reports.
    static func withMonitor(
        _ configuration: AdvertisementConfiguration = AdvertisementFixture.configuration(),
        _ body: (AdvertisingSensorMonitor, EventLog, MockFixture) async throws -> Void
    ) async throws {
        try await MockFixture.with(scenario: MockFixture.scenario(thermometers: 0, others: 0)) { fixture in
            let log = EventLog()
            let monitor = AdvertisingSensorMonitor(
                central: fixture.central, configuration: configuration, log: Log(level: .critical)
            ) { log.record($0) }
            try await body(monitor, log, fixture)
        }
    }

    /// A plain BTHome packet: packet id, temperature (0.01 °C).
    static func bthomePacket(id: UInt8, centiCelsius: Int16 = 2150) -> [UInt8] {
        let t = UInt16(bitPattern: centiCelsius)
        return [0x40, 0x00, id, 0x02, UInt8(t & 0xFF), UInt8(t >> 8)]
    }

    static func send(
        _ monitor: AdvertisingSensorMonitor, _ fixture: MockFixture, _ address: String,
        service: [String: [UInt8]] = [:],
        manufacturer: [UInt16: [UInt8]] = [:], at now: ContinuousClock.Instant = .now
    ) async {
        let parsed = BluetoothAddress(address)!
        let path = await fixture.central.expectedDevicePath(parsed)!
        await monitor.received(
            parsed, path, AdvertisementUpdate(manufacturerData: manufacturer, serviceData: service), at: now)
    }

    static func readings(_ log: EventLog, _ address: String) -> [Measurement] {
        log.all.compactMap(reading(from: address))
    }

    static func errors(_ log: EventLog, _ address: String) -> [ReadingError] {
        log.all.compactMap(readingError(from: address))
    }

    @Test("a truncated object and an unknown object id are reading errors with the payload; the next good packet reads")
    func malformedObjects() async throws {
        try await Self.withMonitor { monitor, log, fixture in
            let address = "A4:C1:38:00:00:10"
            await Self.send(monitor, fixture, address, service: [Self.bthome: [0x40, 0x00, 0x01, 0x02, 0x66]])
            await Self.send(monitor, fixture, address, service: [Self.bthome: [0x40, 0x00, 0x02, 0xFE, 0x01]])
            await Self.send(monitor, fixture, address, service: [Self.bthome: Self.bthomePacket(id: 3)])
            let errors = Self.errors(log, address)
            #expect(errors.map(\.kind) == [.malformed, .unknownObject])
            #expect(errors.first?.raw == [0x40, 0x00, 0x01, 0x02, 0x66])
            #expect(Self.readings(log, address).map(\.celsius) == [21.5])
        }
    }

    @Test("a flipped bit in an encrypted payload fails authentication; the intact packet reads")
    func flippedBit() async throws {
        try await Self.withMonitor { monitor, log, fixture in
            let address = AdvertisementFixture.address(1)
            var sensor = AdvertiserState(MockAdvertiser(format: .bthomeEncrypted, startCelsius: 23))
            let bytes = BluetoothdAPI.addressBytes(address)
            let packet = sensor.advertisement(address: bytes).serviceData[GattUUID.sig(0xFCD2)]!
            var flipped = packet
            flipped[2] ^= 0x04
            await Self.send(monitor, fixture, address, service: [Self.bthome: flipped])
            await Self.send(monitor, fixture, address, service: [Self.bthome: packet])
            #expect(Self.errors(log, address).map(\.kind) == [.decryptionFailed])
            #expect(Self.readings(log, address).map(\.celsius) == [23])
            // Replayed: the same packet again is the same measurement, and an older one is refused.
            var random = SplitMix64(seed: 1)
            while sensor.counter == 1 { sensor.advance(using: &random) }
            let newer = sensor.advertisement(address: bytes).serviceData[GattUUID.sig(0xFCD2)]!
            await Self.send(monitor, fixture, address, service: [Self.bthome: newer])
            await Self.send(monitor, fixture, address, service: [Self.bthome: packet])
            #expect(Self.readings(log, address).count == 2)
            #expect(Self.errors(log, address).map(\.kind) == [.decryptionFailed, .replayed])
        }
    }

    @Test("counters: a repeat is dropped, a gap counts lost packets, a counter going back is a restart")
    func counters() async throws {
        try await Self.withMonitor { monitor, log, fixture in
            let address = "A4:C1:38:00:00:11"
            // A sensor that measures once a second: each packet at the time its counter says
            // (a step the time cannot hold is a restart: docs/advertisements.md).
            let start = ContinuousClock.now
            // The same counter with other bytes (a device re-sending a measurement with, say,
            // a new battery level) is the same measurement too.
            let first: [(Int, Int, Double)] = [
                (10, 2000, 0), (10, 2000, 0.5), (11, 2010, 1), (11, 2020, 1.5), (14, 2040, 4), (5, 2100, 5),
                (6, 2110, 6),
            ]
            for (id, celsius, seconds) in first {
                await Self.send(
                    monitor, fixture, address,
                    service: [Self.bthome: Self.bthomePacket(id: UInt8(id), centiCelsius: Int16(celsius))],
                    at: start + .seconds(seconds))
            }
            #expect(Self.readings(log, address).map(\.celsius) == [20, 20.1, 20.4, 21, 21.1])
            let statistics = await monitor.statistics
            #expect(statistics.lostPackets == 2)
            #expect(statistics.duplicates == 2)
            #expect(statistics.sensors.first?.lostPackets == 2)
            #expect(statistics.sensors.first?.missed == 2 && statistics.sensors.first?.received == 5)
            // The 8-bit packet id wraps: gaps of 93, 99 and 53, then none across 255 → 0; a gap
            // of 118; then 120 → 200 a second later, a step of 80 that one second cannot hold:
            // the sensor restarted (a one-byte counter's restart can look like a step forward).
            let second: [(Int, Double)] = [
                (100, 100), (200, 200), (254, 254), (255, 255), (0, 256), (1, 257), (120, 376), (200, 377),
            ]
            for (id, seconds) in second {
                await Self.send(
                    monitor, fixture, address, service: [Self.bthome: Self.bthomePacket(id: UInt8(id))],
                    at: start + .seconds(seconds))
            }
            let after = await monitor.statistics
            #expect(after.lostPackets == 2 + 93 + 99 + 53 + 118)
            #expect(after.sensors.first?.missed == 2 + 93 + 99 + 53 + 118)
            #expect(after.sensors.first?.countedBy == .counter)
        }
    }

    @Test("a device switching formats is read in each; the stale field beside the new one is not read again")
    func switchingFormats() async throws {
        try await Self.withMonitor { monitor, log, fixture in
            let address = "A4:C1:38:00:00:12"
            let bytes = BluetoothdAPI.addressBytes(address)
            let pvvx = AdvertiserState(MockAdvertiser(format: .pvvx, startCelsius: 19)).advertisement(address: bytes)
            await Self.send(monitor, fixture, address, service: pvvx.serviceData)
            // BlueZ's dictionary keeps the old pvvx entry beside the new BTHome one.
            var both = pvvx.serviceData
            both[Self.bthome] = Self.bthomePacket(id: 1, centiCelsius: 2500)
            await Self.send(monitor, fixture, address, service: both)
            both[Self.bthome] = Self.bthomePacket(id: 2, centiCelsius: 2510)
            await Self.send(monitor, fixture, address, service: both)
            let readings = Self.readings(log, address)
            #expect(readings.map(\.profile) == ["pvvx", "bthome", "bthome"])
            #expect(readings.map(\.celsius) == [19, 25, 25.1])
        }
    }

    @Test("10,000 sensors advertising: the table stays within advert_max_devices, the oldest forgotten")
    func manyAddresses() async throws {
        var configuration = AdvertisementFixture.configuration()
        configuration.maxDevices = 256
        try await Self.withMonitor(configuration) { monitor, log, fixture in
            let start = ContinuousClock.now
            for index in 0..<10_000 {
                let address = BluetoothAddress(value: 0xA4C1_3800_0000 + UInt64(index)).description
                await Self.send(
                    monitor, fixture, address, service: [Self.bthome: Self.bthomePacket(id: 1)],
                    at: start + .milliseconds(index))
            }
            let statistics = await monitor.statistics
            #expect(statistics.sensors.count == 256)
            #expect(statistics.forgotten == 10_000 - 256)
            #expect(statistics.readings == 10_000)
            // The newest are kept.
            #expect(statistics.sensors.map(\.address).max() == BluetoothAddress(value: 0xA4C1_3800_0000 + 9_999))
            #expect(statistics.sensors.map(\.address).min() == BluetoothAddress(value: 0xA4C1_3800_0000 + 10_000 - 256))
            // One reading each; a slow run also reports sensors lost whose stamped times the
            // staleness timer passes meanwhile.
            #expect(log.all.filter { if case .reading = $0 { true } else { false } }.count == 10_000)
        }
    }

    @Test("only the listed devices are read with advert_devices; other fields and companies are ignored")
    func allowList() async throws {
        var configuration = AdvertisementFixture.configuration()
        configuration.devices = .only([BluetoothAddress("A4:C1:38:00:00:20")])
        try await Self.withMonitor(configuration) { monitor, log, fixture in
            await Self.send(monitor, fixture, "A4:C1:38:00:00:20", service: [Self.bthome: Self.bthomePacket(id: 1)])
            await Self.send(monitor, fixture, "A4:C1:38:00:00:21", service: [Self.bthome: Self.bthomePacket(id: 1)])
            await Self.send(monitor, fixture, "A4:C1:38:00:00:20", manufacturer: [0x004C: [0x02, 0x15]])
            #expect(log.count == 1)
            #expect(await monitor.statistics.advertisements == 1)
        }
    }

    @Test("advert_min_interval: at most one reading per interval, every advertisement's counter still followed")
    func minInterval() async throws {
        var configuration = AdvertisementFixture.configuration()
        configuration.minInterval = .seconds(10)
        try await Self.withMonitor(configuration) { monitor, log, fixture in
            let address = "A4:C1:38:00:00:30"
            let start = ContinuousClock.now
            for second in 0..<25 {
                await Self.send(
                    monitor, fixture, address, service: [Self.bthome: Self.bthomePacket(id: UInt8(second))],
                    at: start + .seconds(second))
            }
            #expect(Self.readings(log, address).count == 3)
            #expect(await monitor.statistics.lostPackets == 0)
        }
    }
}
