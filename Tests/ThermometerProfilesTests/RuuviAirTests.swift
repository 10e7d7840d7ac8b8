import SensorModel
import Testing
import ThermometerProfiles

@Suite("Ruuvi Air data formats 6 and E1 (manufacturer data 0x0499)")
struct RuuviAirTests {
    /// ruuvitag-ble's E1 vector from Ruuvi's documentation: 29.5 °C, 55.3 %, 1011.02 hPa,
    /// 201 ppm, sequence 0xDECDEE.
    static let e1 = bytes(hex: "E1170C5668C79E0065007004BD11CA00C90A0213E0AC000000DECDEE110000000000CBB8334C884F")
    /// ruuvitag-ble's format 6 vector from Ruuvi's C tests: the same values, sequence 0xCD.
    static let format6 = bytes(hex: "06170C5668C79E007000C90501D94ACD004C884F")

    @Test(
        "ruuvitag-ble's published vectors decode to the values it shows; the counter is the sequence's low byte",
        arguments: [
            ExpectedReading(
                bytes(hex: "06144E40F8C915000602193200A34BBDC0FF00FF"),
                [.temperature: 25.99, .humidity: 41.58, .pressure: 1014.77, .co2: 537], counter: 0xBD),
            ExpectedReading(
                bytes(hex: "0614DA863CC90300090DF9A600A057F690FF00FF"),
                [.temperature: 26.69, .humidity: 85.91, .pressure: 1014.59, .co2: 3577], counter: 0xF6),
            // 5393 × 0.005 = 26.965 °C exactly: half away from zero here, 26.96 in ruuvitag-ble's
            // round() of the binary float (docs/advertisements.md).
            ExpectedReading(
                bytes(hex: "0615113E08C9030007057B3E00A44D6290FF00FF"),
                [.temperature: 26.97, .humidity: 39.7, .pressure: 1014.59, .co2: 1403], counter: 0x62),
            ExpectedReading(
                bytes(hex: "0614974158C9110005020C56007C4B9580FF00FF"),
                [.temperature: 26.36, .humidity: 41.82, .pressure: 1014.73, .co2: 524], counter: 0x95),
            ExpectedReading(
                format6, [.temperature: 29.5, .humidity: 55.3, .pressure: 1011.02, .co2: 201], counter: 205),
            ExpectedReading(e1, [.temperature: 29.5, .humidity: 55.3, .pressure: 1011.02, .co2: 201], counter: 0xEE),
            // A longer payload: the rest is not read, as the library reads it.
            ExpectedReading(
                format6 + [0x01, 0x02], [.temperature: 29.5, .humidity: 55.3, .pressure: 1011.02, .co2: 201],
                counter: 205),
        ])
    func published(_ expected: ExpectedReading) throws {
        try expectReading(decode(expected.payload, in: ruuviField), expected, profile: "ruuvi-air")
    }

    @Test("\"not available\" leaves the quantity out; E1's sequence 0xFFFFFF leaves the counter out")
    func notAvailable() throws {
        var format6 = Self.format6
        format6.replaceSubrange(9..<11, with: [0xFF, 0xFF])
        try expectReading(
            decode(format6, in: ruuviField),
            ExpectedReading(format6, [.temperature: 29.5, .humidity: 55.3, .pressure: 1011.02], counter: 205),
            profile: "ruuvi-air")
        var e1 = Self.e1
        e1.replaceSubrange(1..<3, with: [0x80, 0x00])
        e1.replaceSubrange(25..<28, with: [0xFF, 0xFF, 0xFF])
        try expectReading(
            decode(e1, in: ruuviField), ExpectedReading(e1, [.humidity: 55.3, .pressure: 1011.02, .co2: 201]),
            profile: "ruuvi-air")
        // Format 6's one-byte sequence has no "not available": 255 is a counter.
        format6[15] = 0xFF
        #expect(try decode(format6, in: ruuviField)?.get().counter == 255)
    }

    @Test(
        "every quantity not available, an implausible temperature, and every truncated length are reading errors",
        arguments: [
            // ruuvitag-ble's invalid vectors
            ExpectedError(bytes(hex: "068000FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF"), .unsupportedValue),
            ExpectedError(
                bytes(hex: "E18000FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF"),
                .unsupportedValue),
            // its minimum vectors: −163.835 °C
            ExpectedError(bytes(hex: "0680010000000000000000000000000000000000"), .outOfRange),
            ExpectedError(
                bytes(hex: "E1800100000000000000000000000000000000000000000000000000000000000000CBB8334C884F"),
                .outOfRange),
        ]
            + (1..<20).map { ExpectedError(Array(RuuviAirTests.format6.prefix($0)), .malformed) }
            + (1..<40).map { ExpectedError(Array(RuuviAirTests.e1.prefix($0)), .malformed) })
    func rejects(_ expected: ExpectedError) throws {
        try expectError(decode(expected.payload, in: ruuviField), expected)
    }

    @Test("ruuvitag-ble's maximum vectors: the pressure (1155.34 hPa) is left out with an error")
    func maximum() throws {
        for hex in [
            "067FFF9C40FFFE27109C40FAFAFEFEFF07FFFFFF",
            "E17FFF9C40FFFE27102710271027109C40FAFADC28F0000000FFFFFE3F0000000000CBB8334C884F",
        ] {
            let reading = try #require(decode(bytes(hex: hex), in: ruuviField)).get()
            #expect(reading.measurement.quantities == Quantities([.temperature: 163.84, .humidity: 100, .co2: 40000]))
            #expect(reading.dropped.map(\.kind) == [.outOfRange])
            #expect(reading.counter == 0xFE || reading.counter == 0xFF)
        }
    }

    @Test("format 5 and the formats neither profile reads are as before; the family counts 8 bits")
    func otherFormats() throws {
        #expect(
            try decode(bytes(hex: "05 12FC 5394 C37C 0004 FFFC 040C AC36 42 00CD CBB8334C884F"), in: ruuviField)?
                .get().measurement.profile == "ruuvi")
        #expect(decode([0x03] + [UInt8](repeating: 0, count: 13), in: ruuviField)?.failure?.kind == .unsupportedVersion)
        #expect(decode([0xE0] + [UInt8](repeating: 0, count: 39), in: ruuviField)?.failure?.kind == .unsupportedVersion)
        #expect(RuuviAirProfile.family.counterModulus == 256)
        // The same measurement in both formats (E1's sequence 0x0102CD, format 6's 0xCD)
        // carries the same counter of the same width: one measurement.
        var e1 = Self.e1
        e1.replaceSubrange(25..<28, with: [0x01, 0x02, 0xCD])
        let legacy = try #require(decode(Self.format6, in: ruuviField)).get()
        let extended = try #require(decode(e1, in: ruuviField)).get()
        #expect(legacy.counter == 0xCD && extended.counter == 0xCD)
        #expect(legacy.counterModulus == 256 && extended.counterModulus == 256)
    }
}
