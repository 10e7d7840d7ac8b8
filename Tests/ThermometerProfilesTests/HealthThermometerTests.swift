import Testing
import SensorModel
import ThermometerProfiles

/// A Temperature Measurement value and what it must decode to.
struct MeasurementCase: Sendable, CustomTestStringConvertible {
    var raw: [UInt8]
    var celsius: Double
    var unit: TemperatureUnit
    var value: Double
    var testDescription: String { "\(value) \(unit.rawValue) \(raw)" }
}

/// Builds a Temperature Measurement: flags, FLOAT (mantissa LE, exponent), then `tail`.
func measurement(flags: UInt8 = 0, mantissa: Int32, exponent: Int8, tail: [UInt8] = []) -> [UInt8] {
    let bits = UInt32(bitPattern: mantissa) & 0x00FF_FFFF
    return [
        flags, UInt8(bits & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits >> 16),
        UInt8(bitPattern: exponent),
    ] + tail
}

/// A 7-byte Date Time: 2024-11-30 12:34:56.
let timestamp: [UInt8] = [0xE8, 0x07, 11, 30, 12, 34, 56]

@Suite("Health Thermometer (0x1809/0x2A1C)")
struct HealthThermometerTests {
    let profile = HealthThermometerProfile()

    @Test("uses the SIG UUIDs in 128-bit form")
    func uuids() {
        #expect(profile.serviceUUIDs.map(\.uuidString) == ["00001809-0000-1000-8000-00805f9b34fb"])
        #expect(
            profile.temperatureCharacteristicUUIDs.map(\.uuidString) == [
                "00002a1c-0000-1000-8000-00805f9b34fb"
            ])
    }

    @Test(
        "decodes mantissa × 10^exponent",
        arguments: [
            // Literal bytes first, so the helper is checked too: 367 × 10⁻¹ °C.
            MeasurementCase(
                raw: [0x00, 0x6F, 0x01, 0x00, 0xFF], celsius: 36.7, unit: .celsius, value: 36.7),
            // −50 × 10⁻¹ °C: a negative 24-bit mantissa.
            MeasurementCase(raw: [0x00, 0xCE, 0xFF, 0xFF, 0xFF], celsius: -5, unit: .celsius, value: -5),
            // 986 × 10⁻¹ °F.
            MeasurementCase(
                raw: [0x01, 0xDA, 0x03, 0x00, 0xFF], celsius: 37, unit: .fahrenheit, value: 98.6),
            MeasurementCase(
                raw: measurement(mantissa: 37, exponent: 0), celsius: 37, unit: .celsius, value: 37),
            MeasurementCase(
                raw: measurement(mantissa: 4, exponent: 1), celsius: 40, unit: .celsius, value: 40),
            MeasurementCase(
                raw: measurement(mantissa: 3670, exponent: -2), celsius: 36.7, unit: .celsius, value: 36.7),
            MeasurementCase(
                raw: measurement(mantissa: 36125, exponent: -3), celsius: 36.13, unit: .celsius,
                value: 36.125),
            MeasurementCase(
                raw: measurement(mantissa: -1234, exponent: -2), celsius: -12.34, unit: .celsius,
                value: -12.34),
            MeasurementCase(
                raw: measurement(mantissa: 0, exponent: 100), celsius: 0, unit: .celsius, value: 0),
            MeasurementCase(
                raw: measurement(mantissa: 2, exponent: 2), celsius: 200, unit: .celsius, value: 200),
            MeasurementCase(
                raw: measurement(mantissa: -600, exponent: -1), celsius: -60, unit: .celsius, value: -60),
            MeasurementCase(
                raw: measurement(flags: 0x01, mantissa: -400, exponent: -1), celsius: -40,
                unit: .fahrenheit, value: -40),
            MeasurementCase(
                raw: measurement(flags: 0x01, mantissa: 1125, exponent: -1), celsius: 44.72,
                unit: .fahrenheit,
                value: 112.5),
            // Reserved flag bits are ignored.
            MeasurementCase(
                raw: measurement(flags: 0xF8, mantissa: 367, exponent: -1), celsius: 36.7, unit: .celsius,
                value: 36.7),
        ])
    func decodes(_ testCase: MeasurementCase) throws {
        let reading = try #require(profile.decode(testCase.raw).success)
        #expect(reading.celsius == testCase.celsius)
        #expect(reading.unit == testCase.unit)
        #expect(reading.raw == testCase.raw.hexString)
        #expect(reading.profile == "health-thermometer")
    }

    @Test(
        "optional fields present: the temperature still decodes",
        arguments: [
            (0x02, timestamp),
            (0x04, [2]),
            (0x06, timestamp + [2]),
            (0x07, timestamp + [2]),
            // Trailing bytes after the announced fields are ignored.
            (0x02, timestamp + [0xAA, 0xBB]),
            (0x00, [0xAA]),
        ] as [(UInt8, [UInt8])])
    func optionalFields(_ flags: UInt8, _ tail: [UInt8]) throws {
        let raw = measurement(
            flags: flags, mantissa: flags & 1 == 0 ? 367 : 986, exponent: -1, tail: tail)
        let reading = try #require(profile.decode(raw).success)
        #expect(reading.celsius == (flags & 1 == 0 ? 36.7 : 37))
    }

    @Test(
        "announced fields that are missing make the value malformed",
        arguments: [
            [0x00], [0x00, 0x6F, 0x01, 0x00],
            measurement(flags: 0x02, mantissa: 367, exponent: -1),
            measurement(flags: 0x02, mantissa: 367, exponent: -1, tail: Array(timestamp.prefix(6))),
            measurement(flags: 0x04, mantissa: 367, exponent: -1),
            measurement(flags: 0x06, mantissa: 367, exponent: -1, tail: timestamp),
        ] as [[UInt8]])
    func truncated(_ raw: [UInt8]) throws {
        let error = try #require(profile.decode(raw).failure)
        #expect(error.kind == .malformed)
        #expect(error.raw == raw)
    }

    @Test(
        "special values are refused, whatever the exponent",
        arguments: [
            UInt32(0x007F_FFFF), 0x0080_0000, 0x007F_FFFE, 0x0080_0002, 0x0080_0001,
            0xFF7F_FFFF, 0xFE80_0000, 0x017F_FFFE, 0xFD80_0002,
        ])
    func specialValues(_ word: UInt32) throws {
        for flags: UInt8 in [0x00, 0x01] {
            let raw = [
                flags, UInt8(word & 0xFF), UInt8(word >> 8 & 0xFF), UInt8(word >> 16 & 0xFF),
                UInt8(word >> 24),
            ]
            let error = try #require(profile.decode(raw).failure)
            #expect(error.kind == .unsupportedValue)
            #expect(error.raw == raw)
        }
    }

    @Test("the mantissas next to the special values are ordinary numbers")
    func nearSpecialValues() throws {
        // 0x7FFFFD × 10⁻⁵ = 83.88605 °C and −0x7FFFFD × 10⁻⁶ = −8.388605 °C.
        let high = try #require(profile.decode(measurement(mantissa: 0x7F_FFFD, exponent: -5)).success)
        #expect(high.celsius == 83.89)
        let low = try #require(profile.decode(measurement(mantissa: -0x7F_FFFD, exponent: -6)).success)
        #expect(low.celsius == -8.39)
    }

    @Test("very negative exponents read as zero", arguments: [-23, -30, -128] as [Int8])
    func tinyValues(_ exponent: Int8) throws {
        let reading = try #require(profile.decode(measurement(mantissa: 5, exponent: exponent)).success)
        #expect(reading.celsius == 0)
    }

    @Test(
        "implausible temperatures are refused",
        arguments: [
            measurement(mantissa: 2501, exponent: -1),
            measurement(mantissa: -601, exponent: -1),
            measurement(flags: 0x01, mantissa: 3921, exponent: -1),
            measurement(mantissa: 1, exponent: 127),
            measurement(mantissa: -0x7F_FFFD, exponent: 127),
            measurement(mantissa: 0x7F_FFFD, exponent: 0),
        ])
    func outOfRange(_ raw: [UInt8]) throws {
        #expect(try #require(profile.decode(raw).failure).kind == .outOfRange)
    }

    @Test("empty and oversized values are refused")
    func lengthLimits() throws {
        #expect(try #require(profile.decode([]).failure).kind == .empty)
        let huge = measurement(mantissa: 367, exponent: -1, tail: [UInt8](repeating: 0, count: 595))
        #expect(huge.count == 600)
        #expect(try #require(profile.decode(huge).failure).kind == .oversized)
    }
}
