import Testing
import SensorModel
import ThermometerProfiles

@Suite("RuuviTag data format 5 (manufacturer data 0x0499)")
struct RuuviTests {
    /// A data format 5 payload from its fields, as the format lays them out.
    static func payload(
        temperature: UInt16 = 0x12FC, humidity: UInt16 = 0x5394, pressure: UInt16 = 0xC37C,
        power: UInt16 = 0xAC36, sequence: UInt16 = 0x00CD
    ) -> [UInt8] {
        func bigEndian(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
        return [5] + bigEndian(temperature) + bigEndian(humidity) + bigEndian(pressure)
            + bytes(hex: "0004 FFFC 040C") + bigEndian(power) + [0x42] + bigEndian(sequence)
            + bytes(hex: "CBB8334C884F")
    }

    @Test("Ruuvi's valid-data test vector")
    func officialVector() throws {
        let payload = bytes(hex: "05 12FC 5394 C37C 0004 FFFC 040C AC36 42 00CD CBB8334C884F")
        #expect(payload == Self.payload())
        try expectReading(
            decode(payload, in: ruuviField),
            ExpectedReading(
                payload, [.temperature: 24.3, .humidity: 53.49, .pressure: 1000.44, .voltage: 2.977], counter: 205),
            profile: "ruuvi")
    }

    @Test(
        "each field, built from the format's examples",
        arguments: [
            // ±2.255 °C (0x01C3, 0xFE3D) round half away from zero to 0.01 °C
            ExpectedReading(
                payload(temperature: 0x01C3),
                [.temperature: 2.26, .humidity: 53.49, .pressure: 1000.44, .voltage: 2.977], counter: 205),
            ExpectedReading(
                payload(temperature: 0xFE3D),
                [.temperature: -2.26, .humidity: 53.49, .pressure: 1000.44, .voltage: 2.977], counter: 205),
            // 10010 × 0.0025 = 25.025 %; 40000 = 100 %
            ExpectedReading(
                payload(humidity: 10010),
                [.temperature: 24.3, .humidity: 25.03, .pressure: 1000.44, .voltage: 2.977], counter: 205),
            ExpectedReading(
                payload(humidity: 40000),
                [.temperature: 24.3, .humidity: 100, .pressure: 1000.44, .voltage: 2.977], counter: 205),
            // 51325 + 50000 Pa = 1013.25 hPa
            ExpectedReading(
                payload(pressure: 51325),
                [.temperature: 24.3, .humidity: 53.49, .pressure: 1013.25, .voltage: 2.977], counter: 205),
            // battery 0 → 1.600 V, 2046 → 3.646 V (the TX power bits do not matter)
            ExpectedReading(
                payload(power: 0x001F),
                [.temperature: 24.3, .humidity: 53.49, .pressure: 1000.44, .voltage: 1.6], counter: 205),
            ExpectedReading(
                payload(power: 2046 << 5),
                [.temperature: 24.3, .humidity: 53.49, .pressure: 1000.44, .voltage: 3.646], counter: 205),
            ExpectedReading(
                payload(sequence: 65534),
                [.temperature: 24.3, .humidity: 53.49, .pressure: 1000.44, .voltage: 2.977], counter: 65534),
        ])
    func fields(_ expected: ExpectedReading) throws {
        try expectReading(decode(expected.payload, in: ruuviField), expected, profile: "ruuvi")
    }

    @Test(
        "\"not available\" leaves the quantity (or the counter) out",
        arguments: [
            ExpectedReading(
                payload(temperature: 0x8000), [.humidity: 53.49, .pressure: 1000.44, .voltage: 2.977], counter: 205),
            ExpectedReading(
                payload(humidity: 0xFFFF), [.temperature: 24.3, .pressure: 1000.44, .voltage: 2.977], counter: 205),
            ExpectedReading(
                payload(pressure: 0xFFFF), [.temperature: 24.3, .humidity: 53.49, .voltage: 2.977], counter: 205),
            ExpectedReading(
                payload(power: 0xFFE0), [.temperature: 24.3, .humidity: 53.49, .pressure: 1000.44], counter: 205),
            ExpectedReading(
                payload(sequence: 0xFFFF), [.temperature: 24.3, .humidity: 53.49, .pressure: 1000.44, .voltage: 2.977]),
        ])
    func notAvailable(_ expected: ExpectedReading) throws {
        try expectReading(decode(expected.payload, in: ruuviField), expected, profile: "ruuvi")
    }

    @Test(
        "bad payloads are refused with the right kind",
        arguments: [
            // Ruuvi's minimum (−163.835 °C) and invalid vectors
            ExpectedError(bytes(hex: "058001000000008001800180010000000000CBB8334C884F"), .outOfRange),
            ExpectedError(bytes(hex: "058000FFFFFFFF800080008000FFFFFFFFFFFFFFFFFFFFFF"), .unsupportedValue),
            // data format 3 (RAWv1, Theengs' vector) and all 0xFF
            ExpectedError(bytes(hex: "03291A1ECE1EFC18F94202CA0B53"), .unsupportedVersion),
            ExpectedError([UInt8](repeating: 0xFF, count: 24), .unsupportedVersion),
            ExpectedError([5], .malformed),
            ExpectedError(Array(payload().dropLast()), .malformed),
            ExpectedError(payload() + [0], .malformed),
        ])
    func rejects(_ expected: ExpectedError) throws {
        try expectError(decode(expected.payload, in: ruuviField), expected)
    }

    @Test(
        "an implausible humidity or pressure is left out with an error; the temperature stands (issue 33)",
        arguments: [
            // 40004 × 0.0025 % = 100.01 %: a sensor artefact
            ExpectedReading(
                payload(humidity: 40004), [.temperature: 24.3, .pressure: 1000.44, .voltage: 2.977], counter: 205,
                dropped: [.humidity]),
            // Ruuvi's maximum vector: humidity 163.835 %, pressure 1155.34 hPa
            ExpectedReading(
                bytes(hex: "057FFFFFFEFFFE7FFF7FFF7FFFFFDEFEFFFECBB8334C884F"),
                [.temperature: 163.84, .voltage: 3.646],
                counter: 65534, dropped: [.humidity, .pressure]),
            // 65534 + 50000 Pa = 1155.34 hPa: the format's ceiling, above any air pressure on Earth
            ExpectedReading(
                payload(pressure: 0xFFFE), [.temperature: 24.3, .humidity: 53.49, .voltage: 2.977], counter: 205,
                dropped: [.pressure]),
        ])
    func dropsImplausibleSecondary(_ expected: ExpectedReading) throws {
        try expectReading(decode(expected.payload, in: ruuviField), expected, profile: "ruuvi")
    }
}
