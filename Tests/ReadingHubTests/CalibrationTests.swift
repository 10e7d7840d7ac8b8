import BlectlProtocol
import ReadingHub
import SensorModel
import TestSupport
import Testing

@Suite("Calibration")
struct CalibrationTests {
    static let sensor = BluetoothAddress("A4:C1:38:00:00:01")
    static let other = BluetoothAddress("A4:C1:38:00:00:02")

    static func hub() -> Hub {
        var limits = Hub.Limits()
        limits.calibrations = [sensor: Calibration(Quantities([.temperature: 0.3, .humidity: 2.5]))]
        return Hub(limits: limits)
    }

    static func advert(_ address: BluetoothAddress, celsius: Double, humidity: Double) -> SensorEvent {
        .reading(
            address, name: "ATC",
            Measurement(
                profile: "atc1441", quantities: Quantities([.temperature: celsius, .humidity: humidity, .battery: 80]),
                raw: "a4c138000001"))
    }

    @Test("the hub adds the offsets before listeners see a reading, and keeps the values as decoded")
    func offsets() async throws {
        let hub = Self.hub()
        let log = EventLog()
        await hub.addListener { log.append($0) }
        await hub.apply(Self.advert(Self.sensor, celsius: 21.2, humidity: 48.1))
        await hub.apply(Self.advert(Self.other, celsius: 21.2, humidity: 48.1))
        let readings = log.all.compactMap { event -> Reading? in
            if case .reading(let reading) = event { reading } else { nil }
        }
        try #require(readings.count == 2)
        let calibrated = readings[0].measurement
        #expect(calibrated.quantities[.temperature] == 21.5 && calibrated.quantities[.humidity] == 50.6)
        #expect(calibrated.quantities[.battery] == 80 && calibrated.raw == "a4c138000001")
        #expect(calibrated.uncalibrated == Quantities([.temperature: 21.2, .humidity: 48.1]))
        #expect(readings[1].measurement.uncalibrated == nil)
        #expect(readings[1].measurement.quantities[.temperature] == 21.2)
        let status = await hub.coreStatus()
        #expect(
            status.section([CalibrationOffset].self) == [
                CalibrationOffset(address: "A4:C1:38:00:00:01", quantity: "humidity", offset: 2.5),
                CalibrationOffset(address: "A4:C1:38:00:00:01", quantity: "temperature", offset: 0.3),
            ])
        #expect(await Hub().coreStatus().section([CalibrationOffset].self) == nil)
    }

    @Test("calibrated humidity stays within 0…100 %RH; a quantity the reading lacks is not invented")
    func clamped() {
        let wet = Calibration(Quantities([.humidity: 5]))
        let dry = Calibration(Quantities([.humidity: -5, .temperature: 1]))
        let measurement = Measurement(
            profile: "atc1441", quantities: Quantities([.humidity: 97.5]), raw: "00")
        #expect(wet.applied(to: measurement).quantities[.humidity] == 100)
        let low = Measurement(profile: "atc1441", quantities: Quantities([.humidity: 2]), raw: "00")
        let applied = dry.applied(to: low)
        #expect(applied.quantities[.humidity] == 0 && applied.quantities[.temperature] == nil)
        #expect(applied.uncalibrated == Quantities([.humidity: 2]))
        let none = Measurement(profile: "atc1441", quantities: Quantities([.battery: 50]), raw: "00")
        #expect(dry.applied(to: none) == none)
    }
}
