import FoundationEssentials
import Testing
import SensorModel
import ThermometerProfiles

@Suite("BluetoothUUID")
struct BluetoothUUIDTests {
    @Test(
        "short forms expand onto the base UUID",
        arguments: ["2a1c", "2A1C", "0x2A1C", "0X2a1c", "00002a1c", "0x00002A1C"])
    func shortForms(_ text: String) throws {
        let uuid = try #require(BluetoothUUID(text))
        #expect(uuid.uuidString == "00002a1c-0000-1000-8000-00805f9b34fb")
        #expect(uuid == BluetoothUUID(UInt16(0x2A1C)))
        #expect(uuid.shortValue == 0x2A1C)
    }

    @Test("integer forms")
    func integers() {
        #expect(BluetoothUUID(UInt16(0x180A)).uuidString == "0000180a-0000-1000-8000-00805f9b34fb")
        #expect(BluetoothUUID(UInt16(0)).uuidString == "00000000-0000-1000-8000-00805f9b34fb")
        #expect(BluetoothUUID(UInt32(0xDEAD_BEEF)).uuidString == "deadbeef-0000-1000-8000-00805f9b34fb")
        #expect(BluetoothUUID(UInt32(0xDEAD_BEEF)).shortValue == 0xDEAD_BEEF)
    }

    @Test(
        "128-bit forms are lowercased",
        arguments: [
            "00000001-710E-4A5B-8D75-3E5B444BC3CF", "00000001-710e-4a5b-8d75-3e5b444bc3cf",
            "00000001-710e-4A5B-8d75-3e5b444BC3cf",
        ])
    func longForms(_ text: String) throws {
        let uuid = try #require(BluetoothUUID(text))
        #expect(uuid.uuidString == "00000001-710e-4a5b-8d75-3e5b444bc3cf")
        #expect(uuid.description == uuid.uuidString)
        #expect(uuid.shortValue == nil)
    }

    @Test("a 128-bit form on the base UUID equals its short form")
    func longEqualsShort() {
        #expect(BluetoothUUID("00001809-0000-1000-8000-00805F9B34FB") == BluetoothUUID(UInt16(0x1809)))
        #expect(
            Set(
                ["1809", "0x1809", "00001809-0000-1000-8000-00805f9b34fb"].compactMap(BluetoothUUID.init)
            ).count == 1)
    }

    @Test(
        "bad text is refused",
        arguments: [
            "", "2a1", "2a1cz", "0x", "0x2a1", "2a1c0", "0x0000180a0", "g000", "-2a1", "+2a1", " 2a1c",
            "2a1c ",
            "2a1c\n", "0x-2a1", "２a1c", "00000001-710e-4a5b-8d75-3e5b444bc3c",
            "00000001-710e-4a5b-8d75-3e5b444bc3cff", "000000017-10e-4a5b-8d75-3e5b444bc3cf",
            "00000001_710e_4a5b_8d75_3e5b444bc3cf", "0000000171 0e4a5b8d753e5b444bc3cf",
            "000000001710e4a5b8d753e5b444bc3cf", "00000001710e4a5b8d753e5b444bc3cf",
            "0x00000001-710e-4a5b-8d75-3e5b444bc3cf",
            "{00000001-710e-4a5b-8d75-3e5b444bc3cf}", "00000001-710e-4a5b-8d75-3e5b444bc3cg",
            "00000001-710e-4a5b-8d75-3e5b444bc3c\u{00E9}",
        ])
    func rejects(_ text: String) {
        #expect(BluetoothUUID(text) == nil)
    }

    @Test("description parses back to the same UUID")
    func losslessRoundTrip() {
        for uuid in [BluetoothUUID(UInt16(0x2A6E)), PiCPUTemperatureProfile.defaultServiceUUIDs[1]] {
            #expect(BluetoothUUID(uuid.description) == uuid)
        }
    }

    @Test("encodes as one canonical string and decodes any accepted form")
    func codable() throws {
        let encoded = try JSONEncoder().encode([BluetoothUUID(UInt16(0x2A1C))])
        #expect(
            String(decoding: encoded, as: UTF8.self) == #"["00002a1c-0000-1000-8000-00805f9b34fb"]"#)
        let decoded = try JSONDecoder().decode(
            [BluetoothUUID].self, from: Data(#"["0x2A1C", "2a1c"]"#.utf8))
        #expect(decoded == [BluetoothUUID(UInt16(0x2A1C)), BluetoothUUID(UInt16(0x2A1C))])
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([BluetoothUUID].self, from: Data(#"["nope"]"#.utf8))
        }
    }
}
