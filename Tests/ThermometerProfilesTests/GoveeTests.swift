import Testing
import SensorModel
import ThermometerProfiles

@Suite("Govee H5072/H5075 (manufacturer data 0xEC88, 6 bytes)")
struct GoveeH5075Tests {
    @Test(
        "decodes the packed temperature and humidity, and the battery",
        arguments: [
            // Theengs decoder's tests: H5075, H5075 below zero, H5072.
            ExpectedReading(bytes(hex: "00 0418ee 64 00"), [.temperature: 26.8, .humidity: 52.6, .battery: 100]),
            ExpectedReading(bytes(hex: "00 811f09 64 00"), [.temperature: -7.3, .humidity: 48.1, .battery: 100]),
            ExpectedReading(bytes(hex: "00 04344b 64 00"), [.temperature: 27.5, .humidity: 53.1, .battery: 100]),
            // GoveeWatcher's example 0x03215d with the battery byte's high bit, the sensor's error
            // flag: Home Assistant's govee-ble then shows no temperature or humidity, only the battery.
            ExpectedReading(bytes(hex: "00 03215d e4 00"), [.battery: 100]),
            // Built from the format: 0 and the bounds (2000999 and −600999).
            ExpectedReading(bytes(hex: "00 000000 00 00"), [.temperature: 0, .humidity: 0, .battery: 0]),
            ExpectedReading(bytes(hex: "00 1e8867 32 00"), [.temperature: 200, .humidity: 99.9, .battery: 50]),
            ExpectedReading(bytes(hex: "00 892ba7 01 00"), [.temperature: -60, .humidity: 99.9, .battery: 1]),
        ])
    func decodes(_ expected: ExpectedReading) throws {
        try expectReading(decode(expected.payload, in: goveeField), expected, profile: "govee-h5075")
    }

    @Test(
        "implausible values are refused",
        arguments: [
            ExpectedError([UInt8](repeating: 0xFF, count: 6), .outOfRange),  // −838.8 °C
            ExpectedError(bytes(hex: "00 7a1200 64 00"), .outOfRange),  // 8000000: 800.0 °C
        ])
    func rejects(_ expected: ExpectedError) throws {
        try expectError(decode(expected.payload, in: goveeField), expected)
    }

    @Test("an implausible humidity or battery is left out; the rest of the reading stands")
    func dropsImplausibleSecondary() throws {
        let expected = ExpectedReading(
            bytes(hex: "00 0418ee 65 00"), [.temperature: 26.8, .humidity: 52.6], dropped: [.battery])
        try expectReading(decode(expected.payload, in: goveeField), expected, profile: "govee-h5075")
    }

    @Test("Govee needs active scanning: the data is in the scan response")
    func activeScanning() {
        #expect(GoveeH5075Profile().needsActiveScanning)
        #expect(GoveeH5074Profile().needsActiveScanning)
    }
}

@Suite("Govee H5074 (manufacturer data 0xEC88, 7 bytes)")
struct GoveeH5074Tests {
    @Test(
        "decodes every field, little-endian",
        arguments: [
            // Theengs decoder's tests.
            ExpectedReading(bytes(hex: "00 c408 231d 64 02"), [.temperature: 22.44, .humidity: 74.59, .battery: 100]),
            ExpectedReading(bytes(hex: "00 a0fa cc17 64 02"), [.temperature: -13.76, .humidity: 60.92, .battery: 100]),
            ExpectedReading(bytes(hex: "00 1b0a 9b19 64 02"), [.temperature: 25.87, .humidity: 65.55, .battery: 100]),
            // Built from the format: the bounds.
            ExpectedReading(bytes(hex: "00 90e8 1027 00 00"), [.temperature: -60, .humidity: 100, .battery: 0]),
        ])
    func decodes(_ expected: ExpectedReading) throws {
        try expectReading(decode(expected.payload, in: goveeField), expected, profile: "govee-h5074")
    }

    @Test(
        "implausible values are refused",
        arguments: [
            ExpectedError(bytes(hex: "00 214e 0000 64 00"), .outOfRange)  // 200.01 °C
        ])
    func rejects(_ expected: ExpectedError) throws {
        try expectError(decode(expected.payload, in: goveeField), expected)
    }

    @Test(
        "an implausible humidity or battery is left out; the rest of the reading stands",
        arguments: [
            ExpectedReading(
                [UInt8](repeating: 0xFF, count: 7), [.temperature: -0.01], dropped: [.humidity, .battery]),
            ExpectedReading(bytes(hex: "00 0000 0000 65 00"), [.temperature: 0, .humidity: 0], dropped: [.battery]),
        ])
    func dropsImplausibleSecondary(_ expected: ExpectedReading) throws {
        try expectReading(decode(expected.payload, in: goveeField), expected, profile: "govee-h5074")
    }

    @Test("0xEC88 payloads of other lengths are no Govee format (9 bytes are H5051's)", arguments: [1, 5, 8, 10, 20])
    func otherLengths(_ length: Int) {
        #expect(decode([UInt8](repeating: 0x01, count: length), in: goveeField) == nil)
    }
}
