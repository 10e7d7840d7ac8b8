import SensorModel
import Testing
import ThermometerProfiles

@Suite("Govee meat thermometers (H5181-H5198, several probes)")
struct GoveeMeatTests {
    /// One advertisement's readings: the first probe's, then the others', as the monitor reports them.
    static func readings(_ hex: String, company: UInt16) throws -> [Measurement] {
        let reading = try #require(decode(bytes(hex: hex), in: .manufacturerData(company))).get()
        return [reading.measurement] + reading.probes
    }

    @Test("govee-ble's published advertisements: each probe a reading with its number")
    func published() throws {
        // H5181 (its iBeacon glued on, cut off), one probe at 22 °C; no probe plugged in reads 0 °C.
        let h5181 = try Self.readings(
            "d801000101e4018608981d1000004c000215494e54454c4c495f524f434b535f48575075f2ff0c", company: 0x388A)
        #expect(h5181.map(\.probe) == [1] && h5181.map(\.celsius) == [22])
        #expect(try Self.readings("ba01000101640006ffff1ce80000", company: 0xEA42).map(\.celsius) == [0])
        // H5184: byte 6 names the pair, probes 1 and 2, then 3 and 4.
        let first = try Self.readings("2001000101e401860c1cffff860af0ffff", company: 0x1B36)
        #expect(first.map(\.probe) == [1, 2] && first.map(\.celsius) == [31, 28])
        let second = try Self.readings("2001000101e402860bb8ffff860b54ffff", company: 0x1B36)
        #expect(second.map(\.probe) == [3, 4] && second.map(\.celsius) == [30, 29])
        // H5185: two probes, the second at byte 14.
        let h5185 = try Self.readings("5401000101e4c16609c4ffffffff09c4ffffffff", company: 0x0332)
        #expect(h5185.map(\.probe) == [1, 2] && h5185.map(\.celsius) == [25, 25])
        // H5191: a probe and the unit's own temperature (no probe).
        let h5191 = try Self.readings("83010001014c5d040fa01324ffff0af0ffffffff", company: 0xAC63)
        #expect(h5191.map(\.probe) == [1, nil] && h5191.map(\.celsius) == [40, 28])
        // H5198: probes 3 and 4.
        let h5198 = try Self.readings("6c01000101a4c20f0e10ffffffff08fcffffffff", company: 0x3022)
        #expect(h5198.map(\.probe) == [3, 4] && h5198.map(\.celsius) == [36, 23])
        #expect(h5198.allSatisfy { $0.profile == "govee-meat" && $0.raw == h5198[0].raw })
    }

    @Test("a sensor id that names no pair of probes is a reading error (a probe number out of range)")
    func probeOutOfRange() {
        for company: UInt16 in [0x1B36] {
            let result = decode(bytes(hex: "2001000101e4ff860c1cffff860af0ffff"), in: .manufacturerData(company))
            #expect(result?.failure?.kind == .outOfRange)
            #expect(result?.failure?.detail?.contains("sensor id 255") == true)
        }
        let h5198 = decode(bytes(hex: "6c01000101a3d40f0bb8ffffffff0960ffffffff"), in: .manufacturerData(0x3022))
        #expect(h5198?.failure?.kind == .outOfRange)
    }

    @Test("every truncated length of every model is nobody's, and a company id no model has")
    func truncations() {
        for (hex, company): (String, UInt16) in [
            ("d801000101e4018608981d100000", 0x388A), ("6301000101e40101ffff120301ffff0000", 0x2730),
            ("2001000101e401860c1cffff860af0ffff", 0x1B36), ("5401000101e4c16609c4ffffffff09c4ffffffff", 0x0332),
            ("83010001014c5d040fa01324ffff0af0ffffffff", 0xAC63),
        ] {
            let whole = bytes(hex: hex)
            #expect(decode(whole, in: .manufacturerData(company))?.success != nil, "\(hex)")
            for length in 1..<whole.count {
                #expect(decode(Array(whole.prefix(length)), in: .manufacturerData(company)) == nil, "\(hex) \(length)")
            }
        }
        #expect(decode(bytes(hex: "d801000101e4018608981d100000"), in: .manufacturerData(0x1234)) == nil)
    }
}
