import SensorModel
import Testing
import ThermometerProfiles

@Suite("ThermoPro (manufacturer data under any company id, named TP35…/TP39…)")
struct ThermoProTests {
    @Test(
        "thermopro-ble's published advertisements decode to the values it shows",
        arguments: [
            (
                "TP357 (2142)", UInt16(0xF1C2),
                ExpectedReading(bytes(hex: "001d022c"), [.temperature: 24.1, .humidity: 29, .battery: 100])
            ),
            (
                "TP357 (2142)", 0xF9C2,
                ExpectedReading(bytes(hex: "0010022c"), [.temperature: 24.9, .humidity: 16, .battery: 100])
            ),
            (
                "TP357S (2142)", 0xEEC2,
                ExpectedReading(bytes(hex: "0029220b01"), [.temperature: 23.8, .humidity: 41, .battery: 100])
            ),
            (
                "TP357S (3C62)", 0xD1C2,
                ExpectedReading(bytes(hex: "0033220b01"), [.temperature: 20.9, .humidity: 51, .battery: 100])
            ),
            (
                "TP358 (2142)", 0xF1C2,
                ExpectedReading(bytes(hex: "001d022c"), [.temperature: 24.1, .humidity: 29, .battery: 100])
            ),
            (
                "TP393 (9376)", 0xF2C2,
                ExpectedReading(bytes(hex: "0035022c"), [.temperature: 24.2, .humidity: 53, .battery: 100])
            ),
            // Temperature and humidity all 0xFF: only the battery.
            ("TP357S (3C62)", 0xFFC2, ExpectedReading(bytes(hex: "ffff220b01"), [.battery: 100])),
        ] as [(String, UInt16, ExpectedReading)])
    func published(_ name: String, _ company: UInt16, _ expected: ExpectedReading) throws {
        try expectReading(
            decode(expected.payload, in: .manufacturerData(company), name: name), expected, profile: "thermopro")
    }

    @Test("the battery's two bits: 0, 1, 2 are 1, 50, 100 %; 3 is none")
    func batteryLevels() throws {
        for (level, percent) in [(0, 1.0), (1, 50.0), (2, 100.0), (3, nil)] as [(UInt8, Double?)] {
            let reading = try #require(
                decode([0x00, 0x29, 0x20 | level, 0x0B, 0x01], in: .manufacturerData(0xEEC2), name: "TP357S")
            ).get()
            #expect(reading.measurement.quantities[.battery] == percent, "\(level)")
        }
        // Nothing to report at all: nobody's.
        #expect(decode([0xFF, 0xFF, 0x03, 0x0B], in: .manufacturerData(0xFFC2), name: "TP357S") == nil)
    }

    @Test("below zero: the temperature is signed")
    func belowZero() throws {
        // -5.3 °C is 0xFFCB: 0xCB in the company id's high byte, 0xFF in the payload.
        let reading = try #require(decode(bytes(hex: "ff32020b01"), in: .manufacturerData(0xCBC2), name: "TP357S"))
            .get()
        #expect(reading.measurement.celsius == -5.3)
    }

    @Test("another name (or none) or the payload without its name is nobody's; the probe thermometers' its own")
    func wrongName() {
        let payload = bytes(hex: "0029220b01")
        for name in ["TP9000NOTHING", "tp357S", "TP3", "", nil] as [String?] {
            #expect(decode(payload, in: .manufacturerData(0xEEC2), name: name) == nil, "\(name ?? "nil")")
        }
        // A TP96…/TP97… is read as a probe (ThermoProProbeProfile): probe 195 at 208 °C, implausible.
        for name in ["TP960R (0000)", "TP972S"] {
            #expect(decode(payload, in: .manufacturerData(0xEEC2), name: name)?.failure?.kind == .outOfRange)
        }
        var keyring = AdvertisementKeyring(keys: [:])
        #expect(ThermoProProfile().decode(payload, from: sensorAddress, keyring: &keyring) == nil)
    }

    @Test("data shorter than 6 bytes is nobody's; every length from 6 on is read")
    func lengths() {
        let full = bytes(hex: "0029220b01")
        // (An empty payload is refused before any format sees it.)
        for length in 1...full.count {
            let result = decode(Array(full.prefix(length)), in: .manufacturerData(0xEEC2), name: "TP357S (2142)")
            #expect((result != nil) == (length >= 4), "\(length)")
        }
    }
}
