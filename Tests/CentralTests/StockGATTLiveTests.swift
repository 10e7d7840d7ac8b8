import Central
import MockBlueZ
import SensorModel
import Testing

/// A Xiaomi stock sensor followed over GATT by address (`gatt_live`): its live value read
/// without a bind key; one not configured is never connected, though it lists the service.
struct StockGATTLiveTests {
    @Test("a configured stock sensor is followed over GATT; the other, unconfigured, never connected")
    func followedByAddress() async throws {
        var scenario = MockScenario.standard(thermometers: 0, others: 0)
        scenario.timings = .fast
        scenario.addStockMemorySensors(2, memory: .xiaomiStock, interval: .milliseconds(300))
        let (configured, other) = ("A4:C1:38:EF:00:01", "A4:C1:38:EF:00:02")
        var configuration = quickConfiguration()
        configuration.addresses = [BluetoothAddress(configured)!]
        try await MockFixture.with(scenario: scenario) { fixture in
            let (monitor, log) = await startMonitor(fixture, configuration: configuration)
            let measurement = try await log.first(within: .seconds(20)) { event -> Measurement? in
                guard let reading = reading(from: configured)(event), reading.profile == "xiaomi-gatt" else {
                    return nil
                }
                return reading
            }
            #expect(measurement.quantities.present.map(\.quantity) == [.temperature, .humidity, .voltage])
            #expect(await fixture.central.connectedDevicePaths().map(\.deviceAddress?.description) == [configured])
            #expect(
                !log.all.contains {
                    if case .connected(let address, _) = $0 { address.description == other } else { false }
                })
            await monitor.shutdown()
        }
    }
}
