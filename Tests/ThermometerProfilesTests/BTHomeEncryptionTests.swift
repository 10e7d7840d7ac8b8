import Testing
import SensorModel
import ThermometerProfiles

/// Encrypted BTHome packets from two independent implementations.
///
/// `published` is from Home Assistant's bthome-ble tests (`test_bindkey_correct`). The
/// others were made by scripts/bthome-test-vectors.py with Debian's python3-cryptography
/// (OpenSSL's AES-CCM), key `testKey`, device `sensorAddress`; their plaintext is in the
/// comments and in that script.
enum EncryptedVectors {
    static let publishedKey = try! AdvertisementKey.bthome(hex: "231d39c1d7cc1ab1aee224cd096db932")
    static let publishedAddress = BluetoothAddress("54:48:E6:8F:80:A5")
    /// 25.06 °C, 50.55 %; counter 0x33221100.
    static let published = bytes(hex: "41 a4 72 66 c9 5f 73 00 11 22 33 78 23 72 14")

    static let testKey = try! AdvertisementKey.bthome(hex: "e9ea895fac7cca6d30532432a516f3a8")
    /// #42, 87 %, 21.50 °C, 40.00 %, 2.950 V; counter 1000.
    static let counter1000 = bytes(hex: "41ad0bb6fc5ec9b07efa27e8fa4ae80300009f243a2a")
    /// #43, 87 %, 21.60 °C, 40.10 %; counter 1001.
    static let counter1001 = bytes(hex: "419f2a8c005e0dd228ee16e9030000fd4eb289")
    /// #41, 21.40 °C; counter 999.
    static let counter999 = bytes(hex: "41ac44d61c7be7030000d2b03246")
    /// #1, 100 %, 20.48 °C; counter 5 (after a battery change).
    static let counter5 = bytes(hex: "414d4f68e1f97b310500000007dcfc17")
    /// The device's address inside the packet (bit 1); 25.00 °C; counter 77.
    static let addressIncluded = bytes(hex: "43b2188d38c1a4198c3f4d0000005eb51fb1")
    /// 25.00 °C, then object 0xEE; counter 1002.
    static let unknownObject = bytes(hex: "4160d1097662ea030000ab31b34a")

    static let keys = [sensorAddress: testKey]
}

@Suite("BTHome v2, encrypted")
struct BTHomeEncryptionTests {
    @Test("bthome-ble's published packet decrypts with its key")
    func publishedVector() throws {
        let result = decode(
            EncryptedVectors.published, in: bthomeField, from: EncryptedVectors.publishedAddress,
            keys: [EncryptedVectors.publishedAddress: EncryptedVectors.publishedKey])
        let expected = ExpectedReading(
            EncryptedVectors.published, [.temperature: 25.06, .humidity: 50.55], counter: 0x3322_1100)
        try expectReading(result, expected, profile: "bthome")
        #expect(try #require(result?.success).isAuthenticated)
    }

    @Test("packets made with OpenSSL decrypt; the counter is the encryption counter, not the packet id")
    func independentVectors() throws {
        let result = decode(EncryptedVectors.counter1000, in: bthomeField, keys: EncryptedVectors.keys)
        let expected = ExpectedReading(
            EncryptedVectors.counter1000,
            [.battery: 87, .temperature: 21.5, .humidity: 40, .voltage: 2.95], counter: 1000)
        try expectReading(result, expected, profile: "bthome")
        #expect(try #require(result?.success).isAuthenticated)
    }

    @Test("the address inside the packet picks the key and makes the nonce, whatever the sender's address")
    func addressIncluded() throws {
        let randomAddress = BluetoothAddress("7B:11:22:33:44:55")
        let result = decode(
            EncryptedVectors.addressIncluded, in: bthomeField, from: randomAddress, keys: EncryptedVectors.keys)
        try expectReading(
            result, ExpectedReading(EncryptedVectors.addressIncluded, [.temperature: 25], counter: 77),
            profile: "bthome")
        let keyForSender = decode(
            EncryptedVectors.addressIncluded, in: bthomeField, from: randomAddress,
            keys: [randomAddress: EncryptedVectors.testKey])
        try expectError(keyForSender, ExpectedError(EncryptedVectors.addressIncluded, .missingKey))
    }

    @Test("a wrong key is a decryption failure, saying which device")
    func wrongKey() throws {
        let result = decode(
            EncryptedVectors.counter1000, in: bthomeField, keys: [sensorAddress: EncryptedVectors.publishedKey])
        try expectError(result, ExpectedError(EncryptedVectors.counter1000, .decryptionFailed))
        #expect(
            result?.failure?.detail
                == "the packet does not authenticate with the key configured for A4:C1:38:8D:18:B2")
    }

    @Test("no key for an encrypted device says so")
    func missingKey() throws {
        try expectError(
            decode(EncryptedVectors.counter1000, in: bthomeField),
            ExpectedError(EncryptedVectors.counter1000, .missingKey))
    }

    @Test("every flipped bit after the device information byte fails authentication")
    func flippedPayloadBits() throws {
        let original = EncryptedVectors.counter1000
        for index in 1..<original.count {
            for bit in 0..<8 {
                var flipped = original
                flipped[index] ^= 1 << bit
                try expectError(
                    decode(flipped, in: bthomeField, keys: EncryptedVectors.keys),
                    ExpectedError(flipped, .decryptionFailed))
            }
        }
    }

    @Test(
        "a flipped bit in the device information byte never yields a reading",
        arguments: [
            (0, ReadingError.Kind.unencrypted),  // now plaintext, from a device with a key
            (1, .missingKey),  // six ciphertext bytes now read as the address, which has no key
            (2, .decryptionFailed),  // trigger-based: part of the nonce
            (3, .decryptionFailed), (4, .decryptionFailed),  // reserved bits: part of the nonce
            (5, .unsupportedVersion), (6, .unsupportedVersion), (7, .unsupportedVersion),
        ])
    func flippedInformationBits(_ bit: Int, _ kind: ReadingError.Kind) throws {
        var flipped = EncryptedVectors.counter1000
        flipped[0] ^= UInt8(1) << bit
        try expectError(decode(flipped, in: bthomeField, keys: EncryptedVectors.keys), ExpectedError(flipped, kind))
    }

    @Test("a counter going backwards is a replay; the same packet again repeats its reading")
    func replay() throws {
        var decoder = AdvertisementDecoder(keys: EncryptedVectors.keys)
        func counter(_ payload: [UInt8]) -> UInt32? {
            decoder.decode(payload, in: bthomeField, from: sensorAddress)?.success?.counter
        }
        #expect(counter(EncryptedVectors.counter1000) == 1000)
        #expect(counter(EncryptedVectors.counter1001) == 1001)
        let replayed = decoder.decode(EncryptedVectors.counter1000, in: bthomeField, from: sensorAddress)
        try expectError(replayed, ExpectedError(EncryptedVectors.counter1000, .replayed))
        #expect(replayed?.failure?.detail == "counter 1000 is below 1001, the last accepted from A4:C1:38:8D:18:B2")
        try expectError(
            decoder.decode(EncryptedVectors.counter999, in: bthomeField, from: sensorAddress),
            ExpectedError(EncryptedVectors.counter999, .replayed))
        #expect(counter(EncryptedVectors.counter1001) == 1001)
        #expect(decoder.keyring.replayGuards[sensorAddress]?.lastAccepted == 1001)
    }

    @Test("a counter restarting below 100 after a battery change is accepted")
    func batteryChange() throws {
        var decoder = AdvertisementDecoder(keys: EncryptedVectors.keys)
        _ = decoder.decode(EncryptedVectors.counter1001, in: bthomeField, from: sensorAddress)
        let restarted = decoder.decode(EncryptedVectors.counter5, in: bthomeField, from: sensorAddress)
        try expectReading(
            restarted,
            ExpectedReading(EncryptedVectors.counter5, [.battery: 100, .temperature: 20.48], counter: 5),
            profile: "bthome")
        #expect(decoder.keyring.replayGuards[sensorAddress]?.lastAccepted == 5)
    }

    @Test("an authentic packet with an unknown object is refused, and its counter still counts")
    func unknownObjectInside() throws {
        var decoder = AdvertisementDecoder(keys: EncryptedVectors.keys)
        let result = decoder.decode(EncryptedVectors.unknownObject, in: bthomeField, from: sensorAddress)
        try expectError(result, ExpectedError(EncryptedVectors.unknownObject, .unknownObject))
        #expect(result?.failure?.detail == "object 0xee at offset 3 of the decrypted data is not a BTHome v2 object")
        try expectError(
            decoder.decode(EncryptedVectors.counter1001, in: bthomeField, from: sensorAddress),
            ExpectedError(EncryptedVectors.counter1001, .replayed))
    }

    @Test("a failed packet changes no replay state")
    func failuresLeaveNoState() {
        var decoder = AdvertisementDecoder(keys: EncryptedVectors.keys)
        var forged = EncryptedVectors.counter1000
        forged[forged.count - 8] = 0xFF  // counter 1023, tag no longer matches
        #expect(decoder.decode(forged, in: bthomeField, from: sensorAddress)?.failure?.kind == .decryptionFailed)
        #expect(decoder.keyring.replayGuards.isEmpty)
        #expect(decoder.decode(EncryptedVectors.counter1000, in: bthomeField, from: sensorAddress)?.success != nil)
    }

    @Test(
        "a device with a key that sends unencrypted data is refused, in any format",
        arguments: [
            (bytes(hex: "40 02 C4 09"), bthomeField),
            (bytes(hex: "b2188d38c1a4 2f09 aa17 3d0b 4b 7c 05"), environmentalField),  // pvvx
            (bytes(hex: "a4c1388d18b2 00e0 3e 49 0b2c 2e"), environmentalField),  // atc1441
        ] as [([UInt8], AdvertisementField)])
    func downgrade(_ payload: [UInt8], _ field: AdvertisementField) throws {
        #expect(decode(payload, in: field)?.success != nil)
        let refused = decode(payload, in: field, keys: EncryptedVectors.keys)
        try expectError(refused, ExpectedError(payload, .unencrypted))
        #expect(refused?.failure?.detail?.hasPrefix("A4:C1:38:8D:18:B2 has a key but sent unencrypted") == true)
    }

    @Test(
        "encrypted packets too short for a counter and tag are malformed",
        arguments: [
            bytes(hex: "41 00 00 00 00 00 00 00 00"), bytes(hex: "41 01"),
            bytes(hex: "43 B2 18 8D 38 C1 A4 01 02 03 04 05 06 07 08"),
        ])
    func tooShort(_ payload: [UInt8]) throws {
        try expectError(
            decode(payload, in: bthomeField, keys: EncryptedVectors.keys), ExpectedError(payload, .malformed))
    }
}
