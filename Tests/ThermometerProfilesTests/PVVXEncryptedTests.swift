import SensorModel
import Testing
import ThermometerProfiles

/// The pvvx firmware's encrypted custom formats' published vector (Passive BLE Monitor's tests).
enum PVVXEncryptedVectors {
    static let address = BluetoothAddress("A4:C1:38:8D:18:B2")
    static let key = try! AdvertisementKey.bthome(hex: "b9ea895fac7eea6d30532432a516f3a3")
    static let keys = [address: key]
    /// Counter 0x11: 23.45 °C, 41.73 %, 61 %.
    static let custom = bytes(hex: "11 d603fbfa7b6d fb1e26fd")
    /// The atc1441 variant sealed with pycryptodomex as the firmware seals it (the mock's key,
    /// this address): counter 7, 21.5 °C, 48.5 %, 87 %.
    static let atc1441 = bytes(hex: "07 818581 19fb696a")
}

@Suite("pvvx encrypted custom formats (service data 0x181A, 11 and 8 bytes, bind key)")
struct PVVXEncryptedTests {
    /// The mock's key (BTHome's test key), for vectors sealed here.
    static let mockKey = try! AdvertisementKey.bthome(hex: "231d39c1d7cc1ab1aee224cd096db932")

    @Test("the published custom advertisement decrypts to the values Passive BLE Monitor shows")
    func published() throws {
        let result = decode(PVVXEncryptedVectors.custom, in: environmentalField, keys: PVVXEncryptedVectors.keys)
        let expected = ExpectedReading(
            PVVXEncryptedVectors.custom, [.temperature: 23.45, .humidity: 41.73, .battery: 61], counter: 0x11)
        try expectReading(result, expected, profile: "pvvx-encrypted")
        #expect(try #require(result?.success).isAuthenticated)
    }

    @Test("the atc1441 variant: half degrees from -40 °C, half percents, the battery's low 7 bits")
    func atc1441Variant() throws {
        let advertiser = PVVXEncryptedVectors.atc1441
        let result = decode(advertiser, in: environmentalField, keys: [sensorAddress: Self.mockKey])
        let expected = ExpectedReading(advertiser, [.temperature: 21.5, .humidity: 48.5, .battery: 87], counter: 7)
        try expectReading(result, expected, profile: "pvvx-encrypted")
    }

    @Test("a wrong key or a changed byte does not authenticate; no key is missingKey")
    func refusals() throws {
        let payload = PVVXEncryptedVectors.custom
        try expectError(
            decode(payload, in: environmentalField, keys: [sensorAddress: Self.mockKey]),
            ExpectedError(payload, .decryptionFailed))
        try expectError(decode(payload, in: environmentalField), ExpectedError(payload, .missingKey))
        for index in payload.indices {
            var changed = payload
            changed[index] ^= 0x01
            try expectError(
                decode(changed, in: environmentalField, keys: PVVXEncryptedVectors.keys),
                ExpectedError(changed, .decryptionFailed))
        }
        // Another sender's address is another nonce.
        let other = BluetoothAddress("A4:C1:38:8D:18:B3")
        try expectError(
            decode(payload, in: environmentalField, from: other, keys: [other: PVVXEncryptedVectors.key]),
            ExpectedError(payload, .decryptionFailed))
    }

    @Test("lengths other than 8 and 11 (and pvvx's 15, ATC1441's 13) are nobody's")
    func lengths() {
        for length in 1...16 where ![8, 11, 13, 15].contains(length) {
            #expect(
                decode(Array(repeating: 0x11, count: length), in: environmentalField, keys: PVVXEncryptedVectors.keys)
                    == nil, "\(length)")
        }
    }

    @Test("once a device has a key, its plain pvvx packets are refused")
    func downgrade() throws {
        let plain = bytes(hex: "b2188d38c1a4 2f09 aa17 3d0b 4b 7c 05")
        try expectError(
            decode(plain, in: environmentalField, keys: PVVXEncryptedVectors.keys), ExpectedError(plain, .unencrypted))
    }
}
