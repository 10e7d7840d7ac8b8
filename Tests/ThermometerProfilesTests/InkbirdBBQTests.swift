import SensorModel
import Testing
import ThermometerProfiles

@Suite("Inkbird iBBQ probe thermometers (IBT-2X, IBT-4XS, IBT-6XS; several probes)")
struct InkbirdBBQTests {
    /// One advertisement as inkbird-ble's tests give it: the local name, the company id BlueZ
    /// reads (the data's first two bytes), the payload after it, and each probe's temperature
    /// by its number.
    struct Vector: Sendable, CustomTestStringConvertible {
        var name: String
        var company: UInt16
        var hex: String
        var probes: [UInt8: Double]
        var testDescription: String { "\(name) \(hex)" }
    }

    /// One advertisement's readings: the first probe's, then the others', as the monitor reports them.
    static func readings(_ hex: String, company: UInt16 = 0, name: String? = "iBBQ") throws -> [Measurement] {
        let reading = try #require(decode(bytes(hex: hex), in: .manufacturerData(company), name: name)).get()
        return [reading.measurement] + reading.probes
    }

    @Test(
        "inkbird-ble's published advertisements: each probe a reading with its number, an unplugged one none",
        arguments: [
            // iBBQ-4 (IBT-4XS), under company id 0.
            Vector(
                name: "iBBQ", company: 0x0000, hex: "000030e2837db5020401fa000401fa00",
                probes: [1: 26, 2: 25, 3: 26, 4: 25]),
            // A probe below 0 °C is signed, not wrapped.
            Vector(
                name: "iBBQ", company: 0x0000, hex: "000030e2837db502cefffa000401fa00",
                probes: [1: -5, 2: 25, 3: 26, 4: 25]),
            // xBBQ-2 (IBT-2X), under company ids 1 and 2.
            Vector(name: "xBBQ", company: 0x0001, hex: "00002c1100006dd3cefffa00", probes: [1: -5, 2: 25]),
            Vector(name: "xBBQ", company: 0x0001, hex: "00002c1100006dd314011101", probes: [1: 27.6, 2: 27.3]),
            Vector(name: "xBBQ", company: 0x0002, hex: "0000561100007f739a001300", probes: [1: 15.4, 2: 1.9]),
            Vector(name: "xBBQ", company: 0x0002, hex: "00002c1100006dd3da03da03", probes: [1: 98.6, 2: 98.6]),
            // Probe 2 not plugged in (0xFFFF): no reading for it.
            Vector(name: "xBBQ", company: 0x0001, hex: "0000561100007f73f800ffff", probes: [1: 24.8]),
        ])
    func published(_ vector: Vector) throws {
        let readings = try Self.readings(vector.hex, company: vector.company, name: vector.name)
        #expect(readings.map(\.probe) == vector.probes.keys.sorted().map { Optional($0) })
        #expect(readings.map(\.celsius) == vector.probes.keys.sorted().map { vector.probes[$0] })
        #expect(readings.allSatisfy { $0.profile == "inkbird-bbq" && $0.raw == vector.hex })
        #expect(readings.allSatisfy { $0.quantities.present.map(\.quantity) == [.temperature] })
    }

    @Test("every probe unplugged: nothing measured, no reading and no error (inkbird-ble shows none)")
    func noProbes() {
        #expect(decode(bytes(hex: "00002c1100006dd3ffffffff"), in: .manufacturerData(1), name: "xBBQ") == nil)
        #expect(
            decode(bytes(hex: "000030e2837db502" + String(repeating: "ffff", count: 6)), in: .manufacturerData(0))
                == nil)
    }

    @Test("the data's length tells the probes: 1, 2, 4 or 6; an unplugged probe keeps the others' numbers")
    func probeCounts() throws {
        let address = "000030e2837db502"
        #expect(try Self.readings(address + "0401").map(\.celsius) == [26])
        let six = try Self.readings(address + "0401ffff" + "fa00" + "e803" + "ffff" + "0a00")
        #expect(six.map(\.probe) == [1, 3, 4, 6] && six.map(\.celsius) == [26, 25, 100, 1])
        // Probe 1 unplugged: the first reading is probe 2's.
        let four = try Self.readings(address + "ffff" + "fa00" + "0000" + "9cff")
        #expect(four.map(\.probe) == [2, 3, 4] && four.map(\.celsius) == [25, 0, -10])
    }

    @Test("a probe outside the plausible temperatures is left out with its error; the others stand")
    func outOfRange() throws {
        // Probe 2 at 250 °C (a grill probe beyond blectl's 200 °C), probe 4 at -3276.8 °C.
        let payload = bytes(hex: "000030e2837db502" + "0401" + "c409" + "fa00" + "0080")
        let reading = try #require(decode(payload, in: .manufacturerData(0), name: "iBBQ")).get()
        #expect(([reading.measurement] + reading.probes).map(\.probe) == [1, 3])
        #expect(reading.dropped.map(\.kind) == [.outOfRange, .outOfRange])
        #expect(reading.dropped.compactMap { $0.detail?.prefix(8) } == ["probe 2:", "probe 4:"])
        // Every plugged probe out of range: the first one's error.
        let hot = bytes(hex: "00002c1100006dd3c409ffff")
        let error = try #require(decode(hot, in: .manufacturerData(1), name: "xBBQ")?.failure)
        #expect(error.kind == .outOfRange && error.raw == hot && error.detail?.hasPrefix("probe 1:") == true)
    }

    @Test("a name holding iBBQ or xBBQ anywhere, ignoring case, is one; any other name, or none, is nobody's")
    func names() throws {
        let payload = bytes(hex: "00002c1100006dd314011101")
        for name in ["iBBQ", "xBBQ", "IBBQ", "ibbq", "My iBBQ grill", "Tp-xbbq-2"] {
            #expect(
                try decode(payload, in: .manufacturerData(1), name: name)?.get().measurement.profile == "inkbird-bbq")
        }
        for name in ["BBQ", "iBB", "i BBQ", "sps", "", nil] as [String?] {
            #expect(decode(payload, in: .manufacturerData(0x1234), name: name) == nil, "\(name ?? "nil")")
        }
        var keyring = AdvertisementKeyring(keys: [:])
        #expect(InkbirdBBQProfile().decode(payload, from: sensorAddress, keyring: &keyring) == nil)
        #expect(decode(payload, in: .serviceData(BluetoothUUID(UInt16(0xFFF0))), name: "iBBQ") == nil)
        #expect(
            AdvertisementRegistry.standard.readsAnyManufacturerData(from: "Grill iBBQ")
                && !AdvertisementRegistry.standard.readsAnyManufacturerData(from: "iBQ"))
    }

    @Test("every truncated length is nobody's but the shorter models' lengths, which read as those models")
    func truncations() throws {
        let full = bytes(hex: "000030e2837db502" + "0401" + "fa00" + "0401" + "fa00" + "1401" + "1101")
        // (An empty payload is refused before any format sees it.)
        for length in 1..<full.count {
            let result = decode(Array(full.prefix(length)), in: .manufacturerData(0), name: "iBBQ")
            switch length {
            case 10, 12, 16:
                let reading = try #require(result, "\(length)").get()
                #expect(reading.probes.count + 1 == (length - 8) / 2, "\(length)")
            default:
                #expect(result == nil, "\(length)")
            }
        }
        #expect(try Self.readings(full.hexString).map(\.celsius) == [26, 25, 26, 25, 27.6, 27.3])
        #expect(decode(full + [0, 0], in: .manufacturerData(0), name: "iBBQ") == nil)
    }
}
