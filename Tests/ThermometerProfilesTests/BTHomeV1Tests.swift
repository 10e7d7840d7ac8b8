import SensorModel
import Testing
import ThermometerProfiles

/// Service data 0x181C (BTHome v1, plain).
let bthomeV1Field = AdvertisementField.serviceData(BTHomeV1Profile.plainUUID)
/// Service data 0x181E (BTHome v1, encrypted).
let bthomeV1EncryptedField = AdvertisementField.serviceData(BTHomeV1Profile.encryptedUUID)

@Suite("BTHome v1 (service data 0x181C plain, 0x181E encrypted)")
struct BTHomeV1Tests {
    /// bthome-ble's v1 encryption example: 25.06 °C, 50.55 %, counter 0x33221100.
    static let encrypted = bytes(hex: "fba435e4d3c312fb0011223357d90a99")

    @Test(
        "bthome-ble's published plain advertisements decode to the values it shows",
        arguments: [
            ExpectedReading(bytes(hex: "2302ca090303bf13"), [.temperature: 25.06, .humidity: 50.55]),
            ExpectedReading(
                bytes(hex: "23025d090303b71802015d"), [.temperature: 23.97, .humidity: 63.27, .battery: 93]),
            ExpectedReading(bytes(hex: "0404138a01"), [.pressure: 1008.83]),
            ExpectedReading(bytes(hex: "030c020c"), [.voltage: 3.074]),
            // A packet id (the counter) and a voltage, beside other objects.
            ExpectedReading(bytes(hex: "0200b4021000030cbe0b"), [.voltage: 3.006], counter: 0xB4),
        ])
    func published(_ expected: ExpectedReading) throws {
        try expectReading(decode(expected.payload, in: bthomeV1Field), expected, profile: "bthome-v1")
    }

    @Test("objects of other kinds (illuminance, a button, a timestamp) carry nothing measured here")
    func nothingMeasured() {
        for hex in ["0405138a14", "023a04", "a5505d396164", "020f01"] {
            #expect(decode(bytes(hex: hex), in: bthomeV1Field) == nil, "\(hex)")
        }
    }

    @Test("the published encrypted advertisement decrypts with its key, and not with another")
    func encrypted() throws {
        let result = decode(
            Self.encrypted, in: bthomeV1EncryptedField, from: EncryptedVectors.publishedAddress,
            keys: [EncryptedVectors.publishedAddress: EncryptedVectors.publishedKey])
        let expected = ExpectedReading(Self.encrypted, [.temperature: 25.06, .humidity: 50.55], counter: 0x3322_1100)
        try expectReading(result, expected, profile: "bthome-v1")
        #expect(try #require(result?.success).isAuthenticated)
        try expectError(
            decode(
                Self.encrypted, in: bthomeV1EncryptedField, from: EncryptedVectors.publishedAddress,
                keys: [EncryptedVectors.publishedAddress: EncryptedVectors.testKey]),
            ExpectedError(Self.encrypted, .decryptionFailed))
        try expectError(
            decode(Self.encrypted, in: bthomeV1EncryptedField, from: EncryptedVectors.publishedAddress),
            ExpectedError(Self.encrypted, .missingKey))
    }

    @Test("a device with a key that sends plain v1 data is refused")
    func downgrade() throws {
        let plain = bytes(hex: "02000c0404138a01")
        try expectError(
            decode(
                plain, in: bthomeV1Field, from: EncryptedVectors.publishedAddress,
                keys: [EncryptedVectors.publishedAddress: EncryptedVectors.publishedKey]),
            ExpectedError(plain, .unencrypted))
    }

    @Test("every truncated plain packet is malformed or nothing; every truncated encrypted one is refused")
    func truncated() throws {
        let full = bytes(hex: "23025d090303b71802015d")
        // Whole objects end at 4, 8 and 11 bytes.
        for length in 1..<full.count {
            let result = decode(Array(full.prefix(length)), in: bthomeV1Field)
            if [4, 8].contains(length) {
                #expect(result?.success != nil, "\(length)")
            } else {
                #expect(result?.failure?.kind == .malformed, "\(length)")
            }
        }
        let keys = [EncryptedVectors.publishedAddress: EncryptedVectors.publishedKey]
        for length in 1..<Self.encrypted.count {
            let result = decode(
                Array(Self.encrypted.prefix(length)), in: bthomeV1EncryptedField,
                from: EncryptedVectors.publishedAddress, keys: keys)
            #expect(result?.failure != nil, "\(length)")
        }
    }

    @Test("a control byte announcing no type, or more than is left, is malformed")
    func malformed() throws {
        for hex in ["00", "2002ca09", "2502ca09"] {
            let result = decode(bytes(hex: hex), in: bthomeV1Field)
            #expect(result?.failure?.kind == .malformed, "\(hex)")
        }
    }

    @Test("the control byte's format decides the sign; float, text and raw objects are skipped")
    func formats() throws {
        // 0xFF9C as unsigned: 655.32 °C (implausible); as signed: -1.00 °C.
        try expectError(
            decode(bytes(hex: "03029cff"), in: bthomeV1Field), ExpectedError(bytes(hex: "03029cff"), .outOfRange))
        let signed = try #require(decode(bytes(hex: "23029cff"), in: bthomeV1Field)).get()
        #expect(signed.measurement.celsius == -1)
        for format in [0x43, 0x63, 0x83] as [UInt8] {
            #expect(decode([format, 0x02, 0x9C, 0xFF], in: bthomeV1Field) == nil, "\(format)")
        }
    }
}
