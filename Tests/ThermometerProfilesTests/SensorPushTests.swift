import SensorModel
import Testing
import ThermometerProfiles

@Suite("SensorPush HT1, HT.w, HTP.xw (manufacturer data under any company id, by name)")
struct SensorPushTests {
    @Test(
        "sensorpush-ble's published advertisements decode to the values it shows",
        arguments: [
            ("s", UInt16(0x4834), ExpectedReading(bytes(hex: "6205"), [.temperature: 13.94, .humidity: 58.09])),
            // The readings' bounds: 128.86 °C with the humidity held to 100 %, −46.85 °C and 0 %.
            ("s", 0xFFFF, ExpectedReading(bytes(hex: "ff07"), [.temperature: 128.86, .humidity: 100])),
            ("s", 0x0000, ExpectedReading(bytes(hex: "0004"), [.temperature: -46.85, .humidity: 0])),
            (
                "SensorPush HT.w 0CA1", 0x9A04,
                ExpectedReading(bytes(hex: "c9a546"), [.temperature: 20.53, .humidity: 44.9])
            ),
            (
                "SensorPush HT.w 0CA1", 0x7504,
                ExpectedReading(bytes(hex: "536446"), [.temperature: 20.48, .humidity: 44.73])
            ),
        ] as [(String, UInt16, ExpectedReading)])
    func published(_ name: String, _ company: UInt16, _ expected: ExpectedReading) throws {
        try expectReading(
            decode(expected.payload, in: .manufacturerData(company), name: name), expected, profile: "sensorpush")
    }

    @Test("an HTP.xw's pressure: 21.5 °C, 48.5 %, 1013.25 hPa by mixed radix 72001, 40001")
    func pressure() throws {
        let packed = (2150 * 4 + 16_000) + 72_001 * (4850 * 4 + 40_001 * (101_325 - 30_000))
        let data = [0x00] + (0..<6).map { UInt8(truncatingIfNeeded: packed >> (8 * $0)) }
        let company = UInt16(data[1]) << 8 | UInt16(data[0])
        let expected = ExpectedReading(
            Array(data.dropFirst(2)), [.temperature: 21.5, .humidity: 48.5, .pressure: 1013.25])
        try expectReading(
            decode(expected.payload, in: .manufacturerData(company), name: "SensorPush HTP.xw 1A2B"), expected,
            profile: "sensorpush")
    }

    @Test("another page, device type (the TC.x's), HT1 type or name is nobody's")
    func wrongModel() {
        // Page 1 of an HT.w; device type 2 (TC.x); an HT1 whose type bits say 2.
        #expect(decode(bytes(hex: "c9a546"), in: .manufacturerData(0x9A05), name: "SensorPush HT.w 0CA1") == nil)
        #expect(decode(bytes(hex: "0d0000"), in: .manufacturerData(0xF908), name: "SensorPush HT.w 0CA1") == nil)
        #expect(decode(bytes(hex: "6209"), in: .manufacturerData(0x4834), name: "s") == nil)
        for name in ["SensorPush TC.x EEFF", "S", "HT.w", "", nil] as [String?] {
            #expect(decode(bytes(hex: "c9a546"), in: .manufacturerData(0x9A04), name: name) == nil, "\(name ?? "nil")")
        }
        var keyring = AdvertisementKeyring(keys: [:])
        #expect(SensorPushProfile().decode(bytes(hex: "c9a546"), from: sensorAddress, keyring: &keyring) == nil)
    }

    @Test(
        "every other length is nobody's: HT1 4 bytes, HT.w 5, HTP.xw 7 (company id included)",
        arguments: [
            ("s", UInt16(0x4834), bytes(hex: "6205"), 2),
            ("SensorPush HT.w 0CA1", 0x9A04, bytes(hex: "c9a546"), 3),
            ("SensorPush HTP.xw 0CA1", 0x9A00, bytes(hex: "c9a5460000"), 5),
        ] as [(String, UInt16, [UInt8], Int)])
    func lengths(_ name: String, _ company: UInt16, _ full: [UInt8], _ read: Int) {
        for length in 1...full.count + 1 {
            let payload = Array((full + [0]).prefix(length))
            #expect(
                (decode(payload, in: .manufacturerData(company), name: name) != nil) == (length == read), "\(length)")
        }
    }

    @Test("exact midpoints round away from zero (the library's floats may go either way)")
    func midpoints() throws {
        // Humidity reading 512: -6 + 125 × 512 / 4096 = 9.625 → 9.63 (the library: 9.62).
        let reading = try #require(decode([0x00, 0x04], in: .manufacturerData(0x0200), name: "s")).get()
        #expect(reading.measurement.quantities[.humidity] == 9.63)
    }
}
