import SensorModel
import Testing
import ThermometerProfiles

@Suite("Inkbird (manufacturer data under any company id, the model by name)")
struct InkbirdTests {
    /// One advertisement as Home Assistant's tests give it: the local name, the company id
    /// BlueZ reads (the data's first two bytes) and what follows.
    struct Vector: Sendable, CustomTestStringConvertible {
        var name: String
        var company: UInt16
        var expected: ExpectedReading
        var testDescription: String { "\(name) \(expected.testDescription)" }
    }

    @Test(
        "inkbird-ble's published advertisements decode to the values it shows",
        arguments: [
            // IBS-TH1 (sps): 9 bytes, hundredths, the temperature in the company id.
            Vector(
                name: "sps", company: 0x07FC,
                expected: ExpectedReading(
                    bytes(hex: "c71200c83d5606"), [.temperature: 20.44, .humidity: 48.07, .battery: 86])),
            Vector(
                name: "sps", company: 0x093B,
                expected: ExpectedReading(
                    bytes(hex: "d01300ce906406"), [.temperature: 23.63, .humidity: 50.72, .battery: 100])),
            Vector(
                name: "sps", company: 0xFFFF,
                expected: ExpectedReading(
                    bytes(hex: "c71200c83d5606"), [.temperature: -0.01, .humidity: 48.07, .battery: 86])),
            // IBS-TH2 (tps) with a humidity sensor, and an IBS-P01B (tps, humidity 0): none.
            Vector(
                name: "tps", company: 0x08C8,
                expected: ExpectedReading(
                    bytes(hex: "84140088996406"), [.temperature: 22.48, .humidity: 52.52, .battery: 100])),
            Vector(
                name: "tps", company: 0x0848,
                expected: ExpectedReading(bytes(hex: "000000c66e0d06"), [.temperature: 21.2, .battery: 13])),
            Vector(
                name: "tps", company: 0x08C8,
                expected: ExpectedReading(bytes(hex: "ffff0088996406"), [.temperature: 22.48, .battery: 100])),
            // 18 bytes under 0x2449, tenths; the name compared ignoring case.
            Vector(
                name: "ITH-13-B", company: 0x2449,
                expected: ExpectedReading(
                    bytes(hex: "1223052f0e0110026400000000000000"), [.temperature: 27, .humidity: 52.8, .battery: 100])
            ),
            Vector(
                name: "ITH-11-B", company: 0x2449,
                expected: ExpectedReading(
                    bytes(hex: "0812005efeff48036400640800000000"),
                    [.temperature: -0.2, .humidity: 84, .battery: 100])),
            Vector(
                name: "ith-21-b", company: 0x2449,
                expected: ExpectedReading(
                    bytes(hex: "0812005e000090016400640800000000"), [.temperature: 0, .humidity: 40, .battery: 100])
            ),
            // The pool thermometer: humidity 0, not sent.
            Vector(
                name: "IBS-P02B", company: 0x2449,
                expected: ExpectedReading(
                    bytes(hex: "11180065d00000005a00800000000000"), [.temperature: 20.8, .battery: 90])
            ),
        ])
    func published(_ vector: Vector) throws {
        try expectReading(
            decode(vector.expected.payload, in: .manufacturerData(vector.company), name: vector.name), vector.expected,
            profile: "inkbird")
    }

    @Test(
        "a humidity or battery above 100 % is a corrupt packet: an error, as Home Assistant drops it",
        arguments: [
            ("sps", UInt16(0x07FC), "ffff00c83d5606"), ("sps", 0x07FC, "c71200c83dff06"),
            ("tps", 0x08C8, "8414008899ff06"), ("ITH-11-B", 0x2449, "0812005e0000ffff6400640800000000"),
            ("ith-13-b", 0x2449, "0812005e00009001ff00640800000000"),
        ] as [(String, UInt16, String)])
    func corrupt(_ name: String, _ company: UInt16, _ hex: String) throws {
        try expectError(
            decode(bytes(hex: hex), in: .manufacturerData(company), name: name),
            ExpectedError(bytes(hex: hex), .outOfRange))
    }

    @Test("another name, no name, or the payload without its name is nobody's")
    func wrongName() {
        let payload = bytes(hex: "c71200c83d5606")
        for name in ["sps2", "ps", "IBS-TH", "", nil] as [String?] {
            #expect(decode(payload, in: .manufacturerData(0x07FC), name: name) == nil, "\(name ?? "nil")")
        }
        var keyring = AdvertisementKeyring(keys: [:])
        #expect(InkbirdProfile().decode(payload, from: sensorAddress, keyring: &keyring) == nil)
        // A name of the 9-byte models with the 18-byte layout, and the other way round.
        #expect(
            decode(bytes(hex: "1223052f0e0110026400000000000000"), in: .manufacturerData(0x2449), name: "sps") == nil)
        #expect(decode(payload, in: .manufacturerData(0x07FC), name: "ITH-13-B") == nil)
        // Service data is never Inkbird's.
        #expect(decode(payload, in: .serviceData(BluetoothUUID(UInt16(0xFFF0))), name: "sps") == nil)
    }

    @Test("every truncated length, and a longer one, is nobody's", arguments: ["sps", "ITH-13-B"])
    func truncated(_ name: String) {
        let full = name == "sps" ? bytes(hex: "c71200c83d5606") : bytes(hex: "1223052f0e0110026400000000000000")
        let company: UInt16 = name == "sps" ? 0x07FC : 0x2449
        // (An empty payload is refused before any format sees it.)
        for length in 1..<full.count {
            #expect(decode(Array(full.prefix(length)), in: .manufacturerData(company), name: name) == nil, "\(length)")
        }
        #expect(decode(full + [0], in: .manufacturerData(company), name: name) == nil)
    }

    @Test("a named device's format comes before a known company id's: Inkbird's 11.77 °C is Ruuvi's 0x0499")
    func namedFormatFirst() throws {
        // Ruuvi would refuse the 7 bytes as an unknown data format.
        let reading = try #require(decode(bytes(hex: "c71200c83d5606"), in: .manufacturerData(0x0499), name: "sps"))
            .get()
        #expect(reading.measurement.profile == "inkbird")
        #expect(reading.measurement.celsius == 11.77)
    }
}
