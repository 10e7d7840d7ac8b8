import SensorModel
import Testing
import ThermometerProfiles

@Suite("ThermoBeacon (manufacturer data under the model's number, 18 bytes)")
struct ThermoBeaconTests {
    @Test(
        "thermobeacon-ble's published advertisements decode to the values it shows (its battery % aside)",
        arguments: [
            (
                0x10,
                ExpectedReading(
                    bytes(hex: "0000b002000047a4e20c8001b6024a000000"),
                    [.temperature: 24, .humidity: 43.38, .voltage: 3.298])
            ),
            (
                0x10,
                ExpectedReading(
                    bytes(hex: "00009c0d0000fe44450cc501870217000000"),
                    [.temperature: 28.31, .humidity: 40.44, .voltage: 3.141])
            ),
            (
                0x1B,
                ExpectedReading(
                    bytes(hex: "0000832c0000d063820c6f01730205230000"),
                    [.temperature: 22.94, .humidity: 39.19, .voltage: 3.202])
            ),
        ] as [(UInt16, ExpectedReading)])
    func published(_ company: UInt16, _ expected: ExpectedReading) throws {
        try expectReading(decode(expected.payload, in: .manufacturerData(company)), expected, profile: "thermobeacon")
    }

    @Test("the other packet is nobody's; a temperature above 100 °C is an error, as Home Assistant drops it")
    func otherPackets() {
        #expect(decode(bytes(hex: "0000f0050000d76ebe0165000000a70100000000"), in: .manufacturerData(0x15)) == nil)
        let hot = decode(bytes(hex: "6100160000acfa2f0b26014703a7e71200c0"), in: .manufacturerData(0x10))
        #expect(hot?.failure?.kind == .outOfRange)
    }

    @Test("sixteenths round to hundredths half to even, as Python's round(x, 2)")
    func halfToEven() throws {
        // 0.125 → 0.12, 0.375 → 0.38, 0.625 → 0.62, 0.875 → 0.88, and below zero alike.
        for (sixteenths, hundredths) in [(2, 12), (6, 38), (10, 62), (14, 88), (-2, -12), (-10, -62), (1, 6)] {
            let temperature = [UInt8(truncatingIfNeeded: sixteenths), UInt8(truncatingIfNeeded: sixteenths >> 8)]
            let payload = bytes(hex: "0000 000000000000 b80b") + temperature + bytes(hex: "1000 00000000")
            let reading = try #require(decode(payload, in: .manufacturerData(0x11))).get()
            #expect(reading.measurement.celsius == Double(hundredths) / 100, "\(sixteenths)")
        }
    }
}
