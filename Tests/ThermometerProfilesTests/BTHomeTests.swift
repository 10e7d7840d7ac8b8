import Testing
import SensorModel
import ThermometerProfiles

@Suite("BTHome v2 (service data 0xFCD2)")
struct BTHomeTests {
    @Test(
        "published packets decode as their sources say",
        arguments: [
            // bthome.io/format's example.
            ExpectedReading(bytes(hex: "40 02 C4 09 03 BF 13"), [.temperature: 25, .humidity: 50.55]),
            // bthome-ble issue 118, explained by the format's author.
            ExpectedReading(
                bytes(hex: "40 00 3f 01 5e 02 82 08 03 ac 17 0c 83 0b"),
                [.battery: 94, .temperature: 21.78, .humidity: 60.6, .voltage: 2.947], counter: 63),
            // bthome-ble's tests: Shelly BLU H&T Display ZB (0x1E, a binary sensor, skipped).
            ExpectedReading(
                bytes(hex: "40 00 2e 01 64 1e 01 2e 34 45 16 01"), [.battery: 100, .humidity: 52, .temperature: 27.8],
                counter: 46),
            // bthome-ble's tests: pressure alone.
            ExpectedReading(bytes(hex: "40 04 13 8a 01"), [.pressure: 1008.83]),
            // Theengs decoder's tests: Shelly BLU H&T, trigger-based (0x44), with and without a button press.
            ExpectedReading(
                bytes(hex: "44 00 4e 01 64 2e 3f 45 df 00"), [.battery: 100, .humidity: 63, .temperature: 22.3],
                counter: 78),
            ExpectedReading(
                bytes(hex: "44 00 4e 01 64 2e 3f 3a 01 45 df 00"), [.battery: 100, .humidity: 63, .temperature: 22.3],
                counter: 78),
            // Theengs: Shelly BLU Motion (illuminance 0x05 and motion 0x21 skipped), Button (0x3A).
            ExpectedReading(bytes(hex: "44 00 02 01 64 05 90 33 00 21 01"), [.battery: 100], counter: 2),
            ExpectedReading(bytes(hex: "40 00 1d 01 64 3a 01"), [.battery: 100], counter: 29),
        ])
    func publishedPackets(_ expected: ExpectedReading) throws {
        try expectReading(decode(expected.payload, in: bthomeField), expected, profile: "bthome")
    }

    @Test(
        "each measured object, built from the format",
        arguments: [
            ExpectedReading(bytes(hex: "40 01 61"), [.battery: 97]),
            // Dew point (0x08, sint16 × 0.01 °C) and carbon dioxide (0x12, uint16 ppm): bthome.io/format.
            ExpectedReading(bytes(hex: "40 08 ca 06 12 e2 04"), [.dewPoint: 17.38, .co2: 1250]),
            ExpectedReading(bytes(hex: "40 08 36 f9"), [.dewPoint: -17.38]),
            ExpectedReading(bytes(hex: "40 01 00"), [.battery: 0]),
            ExpectedReading(bytes(hex: "40 02 CA 09"), [.temperature: 25.06]),
            ExpectedReading(bytes(hex: "40 02 18 FC"), [.temperature: -10]),  // −1000 × 0.01
            ExpectedReading(bytes(hex: "40 02 90 E8"), [.temperature: -60]),  // the lower bound
            ExpectedReading(bytes(hex: "40 03 BF 13"), [.humidity: 50.55]),
            ExpectedReading(bytes(hex: "40 03 10 27"), [.humidity: 100]),  // the upper bound
            ExpectedReading(bytes(hex: "40 04 13 8A 01"), [.pressure: 1008.83]),
            ExpectedReading(bytes(hex: "40 0C 02 0C"), [.voltage: 3.074]),
            ExpectedReading(bytes(hex: "40 2E 23"), [.humidity: 35]),
            ExpectedReading(bytes(hex: "40 45 11 01"), [.temperature: 27.3]),
            ExpectedReading(bytes(hex: "40 45 F6 FF"), [.temperature: -1]),
            ExpectedReading(bytes(hex: "40 4A 1E 00"), [.voltage: 3]),  // 30 × 0.1 V
            ExpectedReading(bytes(hex: "40 57 17"), [.temperature: 23]),
            ExpectedReading(bytes(hex: "40 57 E7"), [.temperature: -25]),
            ExpectedReading(bytes(hex: "40 58 40"), [.temperature: 22.4]),  // 64 × 0.35
            ExpectedReading(bytes(hex: "40 58 C0"), [.temperature: -22.4]),
            ExpectedReading(bytes(hex: "40 58 7F"), [.temperature: 44.45]),
            ExpectedReading(bytes(hex: "40 00 FF 02 C4 09"), [.temperature: 25], counter: 255),
        ])
    func objects(_ expected: ExpectedReading) throws {
        try expectReading(decode(expected.payload, in: bthomeField), expected, profile: "bthome")
    }

    @Test(
        "known objects not measured here are skipped by their length",
        arguments: [
            // text (0x53) and raw (0x54) carry their own length; 0x54 may be empty
            ExpectedReading(bytes(hex: "40 01 64 02 C4 09 53 03 41 42 43"), [.battery: 100, .temperature: 25]),
            ExpectedReading(bytes(hex: "40 02 C4 09 54 00"), [.temperature: 25]),
            // device type id (0xF0, 2 bytes), firmware version (0xF2, 3 bytes)
            ExpectedReading(bytes(hex: "40 02 C4 09 F0 01 00 F2 00 01 06"), [.temperature: 25]),
            // count uint32 (0x3E), timestamp (0x50), acceleration int32 (0x63)
            ExpectedReading(bytes(hex: "40 02 C4 09 3E 2A 2C 09 60 50 5D 39 61 64 63 01 02 03 04"), [.temperature: 25]),
            // a second temperature, a second packet id: the first wins
            ExpectedReading(bytes(hex: "40 02 C4 09 45 11 01"), [.temperature: 25]),
            ExpectedReading(bytes(hex: "40 00 05 00 06 02 C4 09"), [.temperature: 25], counter: 5),
        ])
    func skipped(_ expected: ExpectedReading) throws {
        try expectReading(decode(expected.payload, in: bthomeField), expected, profile: "bthome")
    }

    @Test("the address the packet may carry (bit 1) is skipped")
    func addressIncluded() throws {
        let payload = bytes(hex: "42 B2 18 8D 38 C1 A4 02 C4 09")
        try expectReading(
            decode(payload, in: bthomeField), ExpectedReading(payload, [.temperature: 25]), profile: "bthome")
    }

    @Test("an implausible humidity beside other objects is left out; the battery and temperature stand")
    func dropsImplausibleSecondary() throws {
        let expected = ExpectedReading(
            bytes(hex: "40 01 64 02 C4 09 03 11 27"), [.battery: 100, .temperature: 25], dropped: [.humidity])
        try expectReading(decode(expected.payload, in: bthomeField), expected, profile: "bthome")
    }

    @Test(
        "packets with nothing measured here give no reading",
        arguments: [
            bytes(hex: "40"), bytes(hex: "40 3A 01"), bytes(hex: "40 00 07 3A 00 21 01"), bytes(hex: "44 53 00"),
        ])
    func nothingMeasured(_ payload: [UInt8]) {
        #expect(decode(payload, in: bthomeField) == nil)
    }

    @Test(
        "bad packets are refused with the right kind",
        arguments: [
            ExpectedError([], .empty),
            // version 1 and 7 (bthome-ble's test), all 0xFF
            ExpectedError(bytes(hex: "20 02 C4 09"), .unsupportedVersion),
            ExpectedError(bytes(hex: "E1 02 00 0C 04 04 13 8A 01"), .unsupportedVersion),
            ExpectedError(bytes(hex: "00 02 C4 09"), .unsupportedVersion),
            ExpectedError([UInt8](repeating: 0xFF, count: 12), .unsupportedVersion),
            // object ids the format does not define end the packet
            ExpectedError(bytes(hex: "40 02 C4 09 EE 01"), .unknownObject),
            ExpectedError(bytes(hex: "40 30 01 02 C4 09"), .unknownObject),
            ExpectedError(bytes(hex: "40 3B 01 00"), .unknownObject),
            // truncated objects
            ExpectedError(bytes(hex: "40 02 C4"), .malformed),
            ExpectedError(bytes(hex: "40 02 C4 09 03 BF"), .malformed),
            ExpectedError(bytes(hex: "40 04 13 8A"), .malformed),
            ExpectedError(bytes(hex: "40 53"), .malformed),
            ExpectedError(bytes(hex: "40 53 05 41 42"), .malformed),
            ExpectedError(bytes(hex: "42 B2 18 8D"), .malformed),
            // implausible quantities
            ExpectedError(bytes(hex: "40 02 FF 7F"), .outOfRange),  // 327.67 °C
            ExpectedError(bytes(hex: "40 02 8F E8"), .outOfRange),  // −60.01 °C
            ExpectedError(bytes(hex: "40 03 11 27"), .outOfRange),  // 100.01 %
            ExpectedError(bytes(hex: "40 2E 65"), .outOfRange),  // 101 %
            ExpectedError(bytes(hex: "40 01 65"), .outOfRange),  // battery 101 %
            ExpectedError(bytes(hex: "40 04 00 00 00"), .outOfRange),  // 0 hPa
            ExpectedError(bytes(hex: "40 04 FF FF FF"), .outOfRange),  // 167772.15 hPa
            ExpectedError(bytes(hex: "40 0C FF FF"), .outOfRange),  // 65.535 V
            ExpectedError(bytes(hex: "40 57 80"), .outOfRange),  // −128 °C
            ExpectedError([UInt8](repeating: 0x40, count: 65), .oversized),
        ])
    func rejects(_ expected: ExpectedError) throws {
        try expectError(decode(expected.payload, in: bthomeField), expected)
    }

    @Test(
        "details say where the packet went wrong",
        arguments: [
            (bytes(hex: "40 02 C4 09 EE 01"), "object 0xee at offset 4 is not a BTHome v2 object"),
            (bytes(hex: "40 02 C4 09 03 BF"), "object 0x03 at offset 4 needs 2 bytes, 1 left"),
            (bytes(hex: "40 53"), "object 0x53 at offset 1 has no length byte"),
            (bytes(hex: "20 02 C4 09"), "BTHome version 1; only version 2 is decoded"),
            (bytes(hex: "40 03 11 27"), "humidity 100.01 % is outside 0.0...100.0 %"),
        ] as [([UInt8], String)])
    func details(_ payload: [UInt8], _ detail: String) throws {
        #expect(try #require(decode(payload, in: bthomeField)?.failure).detail == detail)
    }
}
