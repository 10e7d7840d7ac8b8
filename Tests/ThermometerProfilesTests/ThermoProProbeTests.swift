import SensorModel
import Testing
import ThermometerProfiles

@Suite("ThermoPro probe thermometers (TP96x, TP97x: one probe an advertisement, by name)")
struct ThermoProProbeTests {
    /// One advertisement's reading, or nil when it is nobody's.
    static func reading(_ hex: String, company: UInt16, name: String) throws -> AdvertisementReading? {
        try decode(bytes(hex: hex), in: .manufacturerData(company), name: name)?.get()
    }

    @Test(
        "thermopro-ble's published advertisements: the probe's number, internal temperature and battery voltage",
        arguments: [
            // TP960R: probe 0 (the company id's low byte) is probe 1; 0x003A − 30 = 28 °C, 0x0830 mV.
            ("TP960R (0000)", UInt16(0x3A00), "0030083800", UInt8(1), 28.0, 2.096),
            ("TP962R (0000)", 0x3701, "003b0b3700", 2, 25, 2.875),
            ("TP962R (0000)", 0x4300, "00170a4300", 1, 37, 2.583),
            ("TP970R", 0x3500, "00460b3500", 1, 23, 2.886),
            ("TP970R", 0x3400, "00ae0b3400", 1, 22, 2.99),
            // TP972S's 13-byte frames: the 6 bytes appended are not read.
            ("TP972S", 0x3300, "00480a3300ffeeddccbbaa", 1, 21, 2.632),
            ("TP972S", 0x3301, "00480a3300ffeeddccbbaa", 2, 21, 2.632),
            // TP972S's 23-byte multi-point frames: the tip's float °F + 54, in °C to 0.1.
            ("TP972S", 0x7200, "006a0a33d3b8420040ae426606ae426c54737744f8", 1, 3.6, 2.666),
            ("TP972S", 0x8D00, "00a60acdecff429a6900439a6900436c54737744f8", 1, 23.3, 2.726),
        ] as [(String, UInt16, String, UInt8, Double, Double)])
    func published(
        _ name: String, _ company: UInt16, _ hex: String, _ probe: UInt8, _ celsius: Double, _ volts: Double
    ) throws {
        let reading = try #require(try Self.reading(hex, company: company, name: name))
        #expect(reading.measurement.probe == probe)
        #expect(reading.measurement.quantities == Quantities([.temperature: celsius, .voltage: volts]))
        #expect(reading.measurement.profile == "thermopro-probe" && reading.counter == nil && reading.probes.isEmpty)
        #expect(reading.measurement.raw == hex)
    }

    @Test("every length but 7, 13 and (TP97…) 23 is nobody's, as are other names")
    func lengths() throws {
        let whole = bytes(hex: "003b0b3700ffeeddccbbaa0102030405060708090a0b")
        for length in 1...whole.count {
            let payload = Array(whole.prefix(length))
            // The data's lengths (company id included) the library reads: 7, 13, 23.
            let read = [5, 11, 21].contains(length)
            #expect((decode(payload, in: .manufacturerData(0x3701), name: "TP972S") != nil) == read, "\(length)")
            // 23 bytes only from a TP97…: a TP96… sends no multi-point frames.
            let probeModel = decode(payload, in: .manufacturerData(0x3701), name: "TP962R (0000)")
            #expect((probeModel != nil) == (read && length != 21), "\(length)")
        }
        // The name picks the family: a TP35… is a thermo-hygrometer, others are nobody's.
        #expect(
            try Self.reading("003b0b3700", company: 0x3701, name: "TP357S (2142)")?.measurement.profile == "thermopro")
        #expect(decode(bytes(hex: "003b0b3700"), in: .manufacturerData(0x3701), name: "TP9000NOTHING") == nil)
        #expect(decode(bytes(hex: "003b0b3700"), in: .manufacturerData(0x3701), name: nil) == nil)
    }

    @Test("a probe byte 255, an implausible temperature or a tip that is no number is a reading error")
    func badValues() {
        // Probe 256 does not fit a probe number.
        let probe = decode(bytes(hex: "003b0b3700"), in: .manufacturerData(0x37FF), name: "TP962R (0000)")
        #expect(probe?.failure?.kind == .outOfRange)
        // 0xFFFF − 30 and 231 − 30 °C are implausible, 226 − 30 is not (the lowest, −30 °C, is).
        for (company, hex, celsius) in [
            (UInt16(0xFF00), "ff30083800", nil), (0xE700, "0030083800", nil),
            (0xE200, "0030083800", 196.0), (0x0000, "0030083800", -30),
        ] as [(UInt16, String, Double?)] {
            let result = decode(bytes(hex: hex), in: .manufacturerData(company), name: "TP960R")
            #expect(result?.success?.measurement.celsius == celsius, "\(company)")
            #expect((result?.failure?.kind == .outOfRange) == (celsius == nil), "\(company)")
        }
        // A tip float that is NaN (0x7FC00000).
        let nan = decode(
            bytes(hex: "006a0a0000c07f0040ae426606ae426c54737744f8"), in: .manufacturerData(0x7200), name: "TP972S")
        #expect(nan?.failure?.kind == .unsupportedValue)
        // A battery above 10 V is left out with its error; the temperature stands.
        let volts = decode(bytes(hex: "0030ff3800"), in: .manufacturerData(0x3A00), name: "TP960R")?.success
        #expect(volts?.measurement.quantities == Quantities([.temperature: 28]))
        #expect(volts?.dropped.map(\.kind) == [.outOfRange])
    }
}
