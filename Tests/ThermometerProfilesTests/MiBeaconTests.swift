import SensorModel
import Testing
import ThermometerProfiles

/// Home Assistant's xiaomi-ble published test advertisements (tests/test_parser.py), with the
/// values xiaomi-ble 1.21.2 gives for them (`make test-oracle` runs it; its older tests show
/// 46.7 % for the encrypted LYWSD03MMC, before it took that model's humidity in whole percents).
enum MiBeaconVectors {
    struct Vector: Sendable, CustomTestStringConvertible {
        var model: String
        var payload: [UInt8]
        var address: BluetoothAddress
        var key: String?
        var quantities: Quantities
        var testDescription: String { model }

        init(
            _ model: String, _ hex: String, _ address: String, key: String? = nil,
            _ quantities: KeyValuePairs<Quantity, Double>
        ) {
            self.model = model
            payload = bytes(hex: hex)
            self.address = BluetoothAddress(address)!
            self.key = key
            self.quantities = Quantities(quantities)
        }

        /// The reading a decoder with this vector's key makes of it.
        func decode() -> Result<AdvertisementReading, ReadingError>? {
            let keys = key.map { [address: try! AdvertisementKey.miBeacon(hex: $0)] } ?? [:]
            var decoder = AdvertisementDecoder(keys: keys)
            return decoder.decode(payload, in: miBeaconField, from: address)
        }
    }

    static let published: [Vector] = [
        Vector(
            "LYWSDCGQ (v2, plain)", "5020aa01da219335342d580d1004fe004802", "58:2D:34:35:93:21",
            [.temperature: 25.4, .humidity: 58.4]),
        Vector(
            "LYWSD03MMC (v3, plain: whole percents)", "50305b05034c94b438c1a40d10041001ea01", "A4:C1:38:B4:94:4C",
            [.temperature: 27.2, .humidity: 49]),
        Vector(
            "CGG1 (v5)", "5858480b685f12342d585a0b1841e2aa000e00a4964fb5", "5A:58:2D:34:12:5F",
            key: "814aac74c4f17b6c1581e1ab87816b99", [.humidity: 59.6]),
        Vector(
            "CGDK2 (v5)", "58586f0607892012342d585f176dd54f0200002fa453fa", "58:2D:34:12:20:89",
            key: "a3bfe9853dd85a620debe3620caaa351", [.temperature: 22.6]),
        Vector(
            "LYWSD02MMC (v5)", "5858e4162c84535638c1a42b6ef2e91200006c884d9e", "A4:C1:38:56:53:84",
            key: "a115210eed7a88e50ad52662e732a9fb", [.humidity: 58]),
        Vector(
            "LYWSD02MMC (v5, float temperature, no address)", "4858422529202d8c7a76b756a82a0078b8224e",
            "A4:C1:38:0E:FD:78", key: "19b1c678ab0a8bc3dc77765f059188d4", [.temperature: 26.1]),
        Vector(
            "LYWSD02MMC (v5, humidity byte)", "585842258878fd0e38c1a405f6538aa72a0062b1a966", "A4:C1:38:0E:FD:78",
            key: "19b1c678ab0a8bc3dc77765f059188d4", [.humidity: 38]),
        Vector(
            "LYWSD03MMC (v5)", "58585b0550f4830238c1a495ef58763c26000097e2abb5", "A4:C1:38:02:83:F4",
            key: "e9ea895fac7cca6d30532432a516f3a8", [.humidity: 46]),
        Vector(
            "XMWSDJ04MMC (v5, no address)", "48590312a41b776e7c96add7000000f2bf545b", "2C:11:65:25:70:04",
            key: "b2cf9a553d53571b5657defd582d676e", [.humidity: 45]),
    ]
}

/// Service data 0xFE95 (Xiaomi MiBeacon).
let miBeaconField = AdvertisementField.serviceData(XiaomiMiBeaconProfile.serviceUUID)

@Suite("Xiaomi MiBeacon (service data 0xFE95)")
struct MiBeaconTests {
    @Test("Home Assistant's published vectors decode to the values it shows", arguments: MiBeaconVectors.published)
    func published(_ vector: MiBeaconVectors.Vector) throws {
        let reading = try #require(vector.decode()).get()
        #expect(reading.measurement.profile == XiaomiMiBeaconProfile.family.id)
        #expect(reading.measurement.quantities == vector.quantities)
        #expect(reading.isAuthenticated == (vector.key != nil))
        #expect(reading.counterModulus == (vector.key != nil ? 1 << 32 : 1 << 8))
    }

    @Test("an encrypted frame: no key, a wrong key, a tampered byte, a replayed counter")
    func encryptedFailures() throws {
        let cgg1 = MiBeaconVectors.published[2]
        var missing = cgg1
        missing.key = nil
        #expect(missing.decode()?.failure?.kind == .missingKey)
        var wrong = cgg1
        wrong.key = "00112233445566778899aabbccddeeff"
        #expect(wrong.decode()?.failure?.kind == .decryptionFailed)
        var tampered = cgg1
        tampered.payload[12] ^= 0x01
        #expect(tampered.decode()?.failure?.kind == .decryptionFailed)
        var legacyKey = cgg1
        legacyKey.key = "b853075158487aa39a5b5ea9"
        #expect(legacyKey.decode()?.failure?.detail?.contains("needs a 16-byte key") == true)

    }

    @Test("the 32-bit counter is replay-checked: an older authentic frame after a newer one is dropped")
    func replay() throws {
        // Two published frames of one device: the temperature one is the newer (0x2aa829 > 0x2aa788).
        let newer = MiBeaconVectors.published[5]
        let older = MiBeaconVectors.published[6]
        var decoder = AdvertisementDecoder(keys: [newer.address: try AdvertisementKey.miBeacon(hex: newer.key!)])
        let first = decoder.decode(newer.payload, in: miBeaconField, from: newer.address)
        #expect(first?.success?.counter == 0x2A_A829)
        let replayed = decoder.decode(older.payload, in: miBeaconField, from: older.address)
        #expect(replayed?.failure?.kind == .replayed)
        // The other order is two new frames.
        var fresh = AdvertisementDecoder(keys: [newer.address: try AdvertisementKey.miBeacon(hex: newer.key!)])
        #expect(fresh.decode(older.payload, in: miBeaconField, from: older.address)?.success?.counter == 0x2A_A788)
        #expect(fresh.decode(newer.payload, in: miBeaconField, from: newer.address)?.success?.counter == 0x2A_A829)
    }

    @Test("a device with a key that sends a plain frame is refused (a downgrade)")
    func downgrade() {
        let plain = MiBeaconVectors.published[1]
        var keyed = plain
        keyed.key = "e9ea895fac7cca6d30532432a516f3a8"
        #expect(keyed.decode()?.failure?.kind == .unencrypted)
    }

    @Test("frames that are not a thermometer's reading are nobody's: mesh, v1, unknown product, no objects")
    func notReadings() {
        let plain = MiBeaconVectors.published[1]
        for change in [
            { (bytes: inout [UInt8]) in bytes[0] |= 0x80 },  // mesh
            { (bytes: inout [UInt8]) in bytes[1] = bytes[1] & 0x0F | 0x10 },  // version 1
            { (bytes: inout [UInt8]) in
                bytes[2] = 0x98; bytes[3] = 0x00
            },  // a plant sensor
            { (bytes: inout [UInt8]) in bytes[0] &= ~0x40 },  // no objects
        ] {
            var vector = plain
            change(&vector.payload)
            #expect(vector.decode() == nil)
        }
        // The address inside is not the sender's: not this device's frame.
        var elsewhere = plain
        elsewhere.address = BluetoothAddress("A4:C1:38:00:00:01")
        #expect(elsewhere.decode() == nil)
    }

    @Test("every truncated length of every published frame decodes, is refused, or is nobody's; never traps")
    func truncations() {
        for vector in MiBeaconVectors.published {
            for length in 0..<vector.payload.count {
                var short = vector
                short.payload = Array(vector.payload.prefix(length))
                switch short.decode() {
                case .success(let reading)?: #expect(!reading.measurement.quantities.isEmpty)
                case .failure(let error)?: #expect(error.raw == short.payload)
                case nil: break
                }
            }
        }
    }

    @Test("a legacy v2/v3 frame of a device that is no thermometer is nobody's, key or not")
    func legacyNotThermometer() {
        let dimmer = MiBeaconVectors.Vector(
            "YLKG07YL", "5830b603d28b98c54124f8c3491476757e00000099", "F8:24:41:C5:98:8B",
            key: "b853075158487aa39a5b5ea9", [:])
        #expect(dimmer.decode() == nil)
    }

    @Test("keys: 32 or 24 hex digits; the error says so and never repeats the key")
    func keys() throws {
        _ = try AdvertisementKey.miBeacon(hex: "814aac74c4f17b6c1581e1ab87816b99")
        _ = try AdvertisementKey.miBeacon(hex: "b853075158487aa39a5b5ea9")
        #expect(throws: AdvertisementKey.ParseError.self) { try AdvertisementKey.miBeacon(hex: "814aac74") }
        do {
            _ = try AdvertisementKey.miBeacon(hex: "814aac74c4f17b6c1581e1ab87816bzz")
        } catch {
            #expect(error.description == "character 31 of the MiBeacon key is not a hex digit: \"z\"")
        }
    }
}
