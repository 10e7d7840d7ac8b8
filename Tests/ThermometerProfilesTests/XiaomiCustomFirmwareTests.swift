import Testing
import SensorModel
import ThermometerProfiles

@Suite("pvvx custom format (service data 0x181A, 15 bytes)")
struct PVVXTests {
    @Test(
        "decodes every field, little-endian",
        arguments: [
            // Theengs decoder's tests (Qingping CGG1, LYWSD03MMC).
            ExpectedReading(
                bytes(hex: "dc3312342d58 2f09 aa17 3d0b 4b 7c 05"),
                [.temperature: 23.51, .humidity: 60.58, .voltage: 2.877, .battery: 75], counter: 124),
            ExpectedReading(
                bytes(hex: "dc3312342d58 2909 c017 350b 4a 8c 05"),
                [.temperature: 23.45, .humidity: 60.8, .voltage: 2.869, .battery: 74], counter: 140),
            ExpectedReading(
                bytes(hex: "5a582d34126a 3808 1513 da0b 5c 03 04"),
                [.temperature: 21.04, .humidity: 48.85, .voltage: 3.034, .battery: 92], counter: 3),
            ExpectedReading(
                bytes(hex: "5601cf38c1a4 62fd bd13 470c 64 cc 0f"),
                [.temperature: -6.7, .humidity: 50.53, .voltage: 3.143, .battery: 100], counter: 204),
            // Built from the format: bounds and zeros.
            ExpectedReading(
                bytes(hex: "000000000000 90e8 1027 0000 00 00 00"),
                [.temperature: -60, .humidity: 100, .voltage: 0, .battery: 0], counter: 0),
            ExpectedReading(
                bytes(hex: "000000000000 204e 0000 1027 64 ff ff"),
                [.temperature: 200, .humidity: 0, .voltage: 10, .battery: 100], counter: 255),
        ])
    func decodes(_ expected: ExpectedReading) throws {
        try expectReading(decode(expected.payload, in: environmentalField), expected, profile: "pvvx")
    }

    @Test(
        "implausible values are refused",
        arguments: [
            ExpectedError(bytes(hex: "000000000000 214e 0000 0000 00 00 00"), .outOfRange)  // 200.01 °C
        ])
    func rejects(_ expected: ExpectedError) throws {
        try expectError(decode(expected.payload, in: environmentalField), expected)
    }

    @Test(
        "an implausible humidity, voltage or battery is left out; the rest of the reading stands",
        arguments: [
            ExpectedReading(
                [UInt8](repeating: 0xFF, count: 15), [.temperature: -0.01], counter: 255,
                dropped: [.humidity, .voltage, .battery]),
            ExpectedReading(
                bytes(hex: "000000000000 0000 1127 0000 00 00 00"), [.temperature: 0, .voltage: 0, .battery: 0],
                counter: 0, dropped: [.humidity]),
            ExpectedReading(
                bytes(hex: "000000000000 0000 0000 1127 00 00 00"), [.temperature: 0, .humidity: 0, .battery: 0],
                counter: 0, dropped: [.voltage]),
            ExpectedReading(
                bytes(hex: "000000000000 0000 0000 0000 65 00 00"), [.temperature: 0, .humidity: 0, .voltage: 0],
                counter: 0, dropped: [.battery]),
        ])
    func dropsImplausibleSecondary(_ expected: ExpectedReading) throws {
        try expectReading(decode(expected.payload, in: environmentalField), expected, profile: "pvvx")
    }
}

@Suite("atc1441 format (service data 0x181A, 13 bytes)")
struct ATC1441Tests {
    @Test(
        "decodes every field, big-endian",
        arguments: [
            // Theengs decoder's tests (Qingping CGG1 and CGDK2, LYWSD03MMC).
            ExpectedReading(
                bytes(hex: "582d341233dc 00e0 3e 49 0b2c 2e"),
                [.temperature: 22.4, .humidity: 62, .battery: 73, .voltage: 2.86], counter: 46),
            ExpectedReading(
                bytes(hex: "582d341233dc 00e1 3e 4a 0b35 3b"),
                [.temperature: 22.5, .humidity: 62, .battery: 74, .voltage: 2.869], counter: 59),
            ExpectedReading(
                bytes(hex: "2d34121ee5ff 00e6 2b 64 0b71 c0"),
                [.temperature: 23, .humidity: 43, .battery: 100, .voltage: 2.929], counter: 192),
            ExpectedReading(
                bytes(hex: "a4c138d5d498 0145 3e 51 0b7b 62"),
                [.temperature: 32.5, .humidity: 62, .battery: 81, .voltage: 2.939], counter: 98),
            ExpectedReading(
                bytes(hex: "a4c138d5d498 ffd3 3e 51 0b7b 62"),
                [.temperature: -4.5, .humidity: 62, .battery: 81, .voltage: 2.939], counter: 98),
            // Built from the format: bounds.
            ExpectedReading(
                bytes(hex: "000000000000 fda8 64 00 2710 ff"),
                [.temperature: -60, .humidity: 100, .battery: 0, .voltage: 10], counter: 255),
        ])
    func decodes(_ expected: ExpectedReading) throws {
        try expectReading(decode(expected.payload, in: environmentalField), expected, profile: "atc1441")
    }

    @Test(
        "implausible values are refused",
        arguments: [
            ExpectedError(bytes(hex: "000000000000 07d1 00 00 0000 00"), .outOfRange)  // 200.1 °C
        ])
    func rejects(_ expected: ExpectedError) throws {
        try expectError(decode(expected.payload, in: environmentalField), expected)
    }

    @Test(
        "an implausible humidity, battery or voltage is left out; the rest of the reading stands",
        arguments: [
            ExpectedReading(
                [UInt8](repeating: 0xFF, count: 13), [.temperature: -0.1], counter: 255,
                dropped: [.humidity, .battery, .voltage]),
            ExpectedReading(
                bytes(hex: "000000000000 0000 65 00 0000 00"), [.temperature: 0, .battery: 0, .voltage: 0],
                counter: 0, dropped: [.humidity]),
            ExpectedReading(
                bytes(hex: "000000000000 0000 00 65 0000 00"), [.temperature: 0, .humidity: 0, .voltage: 0],
                counter: 0, dropped: [.battery]),
            ExpectedReading(
                bytes(hex: "000000000000 0000 00 00 2711 00"), [.temperature: 0, .humidity: 0, .battery: 0],
                counter: 0, dropped: [.voltage]),
        ])
    func dropsImplausibleSecondary(_ expected: ExpectedReading) throws {
        try expectReading(decode(expected.payload, in: environmentalField), expected, profile: "atc1441")
    }

    @Test(
        "0x181A payloads of other lengths are neither format",
        arguments: [0, 1, 6, 11, 12, 14, 16, 19, 31])
    func otherLengths(_ length: Int) {
        let payload = [UInt8](repeating: 0x11, count: length)
        var keyring = AdvertisementKeyring()
        #expect(PVVXProfile().decode(payload, from: sensorAddress, keyring: &keyring) == nil)
        #expect(ATC1441Profile().decode(payload, from: sensorAddress, keyring: &keyring) == nil)
        // 11 bytes (and 8) are the encrypted formats': without a key, missingKey.
        if length > 0, length != PVVXEncryptedProfile.customLength {
            #expect(decode(payload, in: environmentalField) == nil)
        }
    }
}
