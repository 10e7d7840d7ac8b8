import SensorModel
import Testing
import ThermometerProfiles

/// Manufacturer data 0x0001 (Govee H5100 and its kin, H5106, B5178).
let goveeH5100Field = AdvertisementField.manufacturerData(GoveeH5100Profile.companyID)
/// Manufacturer data 0x8801 (Govee H5179).
let goveeH5179Field = AdvertisementField.manufacturerData(GoveeH5179Profile.companyID)

@Suite("Govee H5051/H5052/H5071, H5100…H5110/H5174/H5177, H5106, B5178, H5179 (as govee-ble reads them)")
struct GoveeModelsTests {
    @Test(
        "govee-ble's published advertisements decode to the values it shows",
        arguments: [
            // H5051 (no name), H5052, H5071: 0xEC88, 9 bytes, hundredths.
            (
                "", goveeField, "govee-h5051",
                ExpectedReading(
                    bytes(hex: "00ba0af90f63020101"), [.temperature: 27.46, .humidity: 40.89, .battery: 99])
            ),
            (
                "Govee_H5052_E81B", goveeField, "govee-h5051",
                ExpectedReading(bytes(hex: "001c01a7143b000002"), [.temperature: 2.84, .humidity: 52.87, .battery: 59])
            ),
            (
                "Govee_H5071_FD12", goveeField, "govee-h5051",
                ExpectedReading(bytes(hex: "00210ab61218c80001"), [.temperature: 25.93, .humidity: 47.9, .battery: 24])
            ),
            // H5100, H5104, H5105, H5110 (one below zero), GV5179: 0x0001, 6 bytes, named.
            (
                "GVH5100_7738", goveeH5100Field, "govee-h5100",
                ExpectedReading(bytes(hex: "010103465464"), [.temperature: 21.4, .humidity: 61.2, .battery: 100])
            ),
            (
                "GVH5104_311C", goveeH5100Field, "govee-h5100",
                ExpectedReading(bytes(hex: "010103fc2662"), [.temperature: 26.1, .humidity: 15.8, .battery: 98])
            ),
            (
                "GVH5104_311C", goveeH5100Field, "govee-h5100",
                ExpectedReading(bytes(hex: "01010203d95e"), [.temperature: 13.2, .humidity: 5.7, .battery: 94])
            ),
            (
                "GVH5105_7336", goveeH5100Field, "govee-h5100",
                ExpectedReading(bytes(hex: "010103325e64"), [.temperature: 20.9, .humidity: 50.2, .battery: 100])
            ),
            (
                "GVH5110_2EC8", goveeH5100Field, "govee-h5100",
                ExpectedReading(bytes(hex: "0101038efe64"), [.temperature: 23.3, .humidity: 21.4, .battery: 100])
            ),
            (
                "GVH5110_4A33", goveeH5100Field, "govee-h5100",
                ExpectedReading(bytes(hex: "010182f7fd64"), [.temperature: -19.4, .humidity: 55.7, .battery: 100])
            ),
            (
                "GV5179_6319", goveeH5100Field, "govee-h5100",
                ExpectedReading(bytes(hex: "010103b31464"), [.temperature: 24.2, .humidity: 45.2, .battery: 100])
            ),
            // H5108: 8 bytes, any name; the error flag leaves only the battery.
            (
                "GV51085242", goveeH5100Field, "govee-h5100",
                ExpectedReading(bytes(hex: "010103c730640000"), [.temperature: 24.7, .humidity: 60, .battery: 100])
            ),
            ("G", goveeH5100Field, "govee-h5100", ExpectedReading(bytes(hex: "010103c730e40000"), [.battery: 100])),
            // H5106: 32 bits, PM2.5 left out; one below zero.
            (
                "GVH5106_4E05", goveeH5100Field, "govee-h5106",
                ExpectedReading(bytes(hex: "01010ed13298"), [.temperature: 24.8, .humidity: 59.1])
            ),
            (
                "GVH5106_4E05", goveeH5100Field, "govee-h5106",
                ExpectedReading(bytes(hex: "010181867cd8"), [.temperature: -2.5, .humidity: 59.1])
            ),
            // B5178: the unit (sensor 0) and an unknown sensor id, read as the unit's.
            (
                "B51782BC8", goveeH5100Field, "govee-b5178",
                ExpectedReading(bytes(hex: "010100002af7640003"), [.temperature: 1, .humidity: 99.9, .battery: 100])
            ),
            (
                "B51782BC8", goveeH5100Field, "govee-b5178",
                ExpectedReading(bytes(hex: "010107002af7640003"), [.temperature: 1, .humidity: 99.9, .battery: 100])
            ),
            // H5179: 0x8801, in the scan response.
            (
                "Govee_H5179_3CD5", goveeH5179Field, "govee-h5179",
                ExpectedReading(bytes(hex: "ec0001010a0aa40664"), [.temperature: 25.7, .humidity: 17, .battery: 100])
            ),
        ] as [(String, AdvertisementField, ProfileID, ExpectedReading)])
    func published(_ name: String, _ field: AdvertisementField, _ profile: ProfileID, _ expected: ExpectedReading)
        throws
    {
        try expectReading(decode(expected.payload, in: field, name: name), expected, profile: profile)
    }

    @Test("a B5178's remote sensor (sensor 1) is not read: one reading per address")
    func b5178Remote() {
        for name in ["B51782BC8", "Govee_1234", nil] as [String?] {
            #expect(decode(bytes(hex: "010101002af7640003"), in: goveeH5100Field, name: name) == nil)
        }
    }

    @Test("the packed measurement: outside -40…100 °C only the battery, as govee-ble reports it")
    func packedRange() throws {
        // 100.0 °C and −40.0 °C are read; 100.1 °C, −40.1 °C are not (0x80 0000 | 401000).
        for (packed, celsius) in [("0f4240", 100.0), ("861a80", -40.0)] {
            let reading = try #require(
                decode(bytes(hex: "0101" + packed + "50"), in: goveeH5100Field, name: "GVH5101_0001")
            ).get()
            #expect(reading.measurement.quantities == Quantities([.temperature: celsius, .humidity: 0, .battery: 80]))
        }
        for packed in ["0f4628", "861e68"] {
            let reading = try #require(
                decode(bytes(hex: "0101" + packed + "50"), in: goveeH5100Field, name: "GVH5101_0001")
            ).get()
            #expect(reading.measurement.quantities == Quantities([.battery: 80]), "\(packed)")
        }
    }

    @Test("the 6-byte formats need their model in the name; H5140's and H5112's 8 bytes are not H5108's")
    func wrongModel() {
        for name in ["GVH5075_0001", "GVH5140", "", nil] as [String?] {
            #expect(decode(bytes(hex: "010103465464"), in: goveeH5100Field, name: name) == nil, "\(name ?? "nil")")
        }
        for name in ["GV5140303A", "GV5112AC3D"] {
            #expect(decode(bytes(hex: "0101033dee023e00"), in: goveeH5100Field, name: name) == nil, "\(name)")
        }
        // An H5106 named otherwise is read as nothing (its 32 bits are no H5100's 24).
        #expect(decode(bytes(hex: "01010ed13298"), in: goveeH5100Field, name: "H5106") != nil)
        #expect(decode(bytes(hex: "01010ed13298"), in: goveeH5100Field, name: "Govee") == nil)
        // Other companies' 9 bytes.
        #expect(decode(bytes(hex: "ec0001010a0aa40664"), in: .manufacturerData(0x8803)) == nil)
    }

    @Test(
        "every truncated or lengthened payload is nobody's",
        arguments: [
            ("GVH5051_0001", goveeField, bytes(hex: "00ba0af90f63020101"), [6, 7, 9]),
            ("GVH5100_7738", goveeH5100Field, bytes(hex: "010103465464 0000"), [6, 8, 9]),
            ("GVH5106_4E05", goveeH5100Field, bytes(hex: "01010ed13298"), [6]),
            ("B51782BC8", goveeH5100Field, bytes(hex: "010100002af7640003"), [8, 9]),
            ("Govee_H5179_3CD5", goveeH5179Field, bytes(hex: "ec0001010a0aa40664"), [9]),
        ] as [(String, AdvertisementField, [UInt8], Set<Int>)])
    func lengths(_ name: String, _ field: AdvertisementField, _ full: [UInt8], _ read: Set<Int>) {
        // The Govee formats of 0xEC88 and 0x0001 share fields: a length another reads is its.
        for length in 1...full.count + 1 {
            let payload = Array((full + [0]).prefix(length))
            #expect((decode(payload, in: field, name: name) != nil) == read.contains(length), "\(length)")
        }
    }

    @Test("only the H5179 needs active scanning of the new Govee formats")
    func scanning() {
        #expect(GoveeH5179Profile().needsActiveScanning)
        #expect(!GoveeH5051Profile().needsActiveScanning)
        #expect(!GoveeH5100Profile().needsActiveScanning)
        #expect(!GoveeB5178Profile().needsActiveScanning)
    }
}
