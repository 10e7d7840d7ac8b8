import Testing
import SensorModel
import ThermometerProfiles

@Suite("Environmental Sensing (0x181A/0x2A6E)")
struct EnvironmentalSensingTests {
    let profile = EnvironmentalSensingProfile()

    @Test("uses the SIG UUIDs in 128-bit form")
    func uuids() {
        #expect(profile.serviceUUIDs.map(\.uuidString) == ["0000181a-0000-1000-8000-00805f9b34fb"])
        #expect(
            profile.temperatureCharacteristicUUIDs.map(\.uuidString) == [
                "00002a6e-0000-1000-8000-00805f9b34fb"
            ])
    }

    @Test(
        "decodes sint16 little-endian hundredths of a degree",
        arguments: [
            ([0x29, 0x09], 23.45),  // 2345
            ([0xE6, 0xFB], -10.5),  // −1050
            ([0xFF, 0xFF], -0.01),  // −1
            ([0x00, 0x00], 0),
            ([0x01, 0x00], 0.01),
            ([0x20, 0x4E], 200),  // 20000, the upper bound
            ([0x90, 0xE8], -60),  // −6000, the lower bound
        ] as [([UInt8], Double)])
    func decodes(_ raw: [UInt8], _ celsius: Double) throws {
        let reading = try #require(profile.decode(raw).success)
        #expect(reading.celsius == celsius)
        #expect(reading.unit == .celsius)
        #expect(reading.raw == raw.hexString)
        #expect(reading.profile == "environmental-sensing")
    }

    @Test(
        "refuses bad values with the right kind",
        arguments: [
            ([], .empty),
            ([0x29], .malformed),
            ([0x29, 0x09, 0x00], .malformed),
            ([0x00, 0x80], .unsupportedValue),  // 0x8000: not known
            ([0xFF, 0x7F], .outOfRange),  // 327.67
            ([0x21, 0x4E], .outOfRange),  // 200.01
            ([0x8F, 0xE8], .outOfRange),  // −60.01
            ([0x01, 0x80], .outOfRange),  // −327.67
            ([UInt8](repeating: 0x29, count: 600), .oversized),
        ] as [([UInt8], ReadingError.Kind)])
    func rejects(_ raw: [UInt8], _ kind: ReadingError.Kind) throws {
        let error = try #require(profile.decode(raw).failure)
        #expect(error.kind == kind)
        #expect(error.raw == raw)
    }
}
