import Central
import MockBlueZ
import SensorModel
import Testing
import UnixSupport

/// Advertising sensors in a quick world, and the two monitors that read them.
enum AdvertisementFixture {
    /// The address of the mock's advertising sensor `index` (formats in turn: BTHome,
    /// encrypted BTHome, pvvx, ATC1441, Ruuvi, Govee).
    static func address(_ index: Int) -> String {
        MockPeripheral.advertiser(index: index).address
    }

    /// The key of the mock's encrypted BTHome sensors.
    static var key: AdvertisementKey {
        try! AdvertisementKey.bthome(hex: MockAdvertiser.bthomeKey.hexString)
    }

    /// `thermometers` Pis and `advertisers` sensors advertising every 100 ms.
    static func scenario(thermometers: Int = 0, advertisers: Int = 6) -> MockScenario {
        var scenario = MockFixture.scenario(thermometers: thermometers, others: 0)
        scenario.addAdvertisers(advertisers)
        return scenario
    }

    /// The configuration the tests start from: every format, the encrypted sensor's key.
    static func configuration(key: AdvertisementKey? = key) -> AdvertisementConfiguration {
        let encrypted = BluetoothAddress(address(1))!
        return AdvertisementConfiguration(keys: key.map { [encrypted: $0] } ?? [:])
    }

    /// Both monitors over the fixture's central, reporting into one log; discovery stays on.
    static func start(
        _ fixture: MockFixture, configuration: AdvertisementConfiguration = configuration(),
        thermometers: ThermometerConfiguration = quickConfiguration()
    ) async -> (AdvertisingSensorMonitor, ThermometerMonitor, EventLog) {
        let log = EventLog()
        var thermometers = thermometers
        thermometers.keepsScanning = true
        let monitor = ThermometerMonitor(
            central: fixture.central, configuration: thermometers, log: Log(level: .warning)
        ) { log.record($0) }
        let adverts = AdvertisingSensorMonitor(
            central: fixture.central, configuration: configuration, log: Log(level: .warning)
        ) { log.record($0) }
        await adverts.start()
        await monitor.start()
        return (adverts, monitor, log)
    }

    /// Waits for ten readings of sensor 0 (a new measurement every 200 ms; the bound is only
    /// liveness, as a loaded 2-core machine starved this past 5 s), then checks that
    /// duplicates were dropped and no packet lost; returns the statistics and the raw values
    /// of the five counted sensors' readings, oldest first (each at least two).
    static func readTenMeasurements(
        _ adverts: AdvertisingSensorMonitor, _ log: EventLog
    ) async throws -> (statistics: AdvertisementStatistics, raws: [[String]]) {
        for _ in 0..<10 {
            let mark = log.count
            _ = try await log.first(after: mark, within: .seconds(15), reading(from: address(0)))
        }
        let statistics = await adverts.statistics
        #expect(statistics.duplicates > 0)
        #expect(statistics.lostPackets == 0)
        let raws = (0..<5).map { index in log.all.compactMap(reading(from: address(index))).map(\.raw) }
        for (index, values) in raws.enumerated() { #expect(values.count >= 2, "sensor \(index)") }
        return (statistics, raws)
    }

    static func stop(_ adverts: AdvertisingSensorMonitor, _ monitor: ThermometerMonitor) async {
        await adverts.shutdown()
        await monitor.shutdown()
    }
}

/// A reading error from `address`, as a match for ``EventLog/first(after:within:_:)``.
func readingError(from address: String) -> @Sendable (SensorEvent) -> ReadingError? {
    { event in
        guard case .readingError(let from, _, let error) = event, from.description == address else { return nil }
        return error
    }
}
