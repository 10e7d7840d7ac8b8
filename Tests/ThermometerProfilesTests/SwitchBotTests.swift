import SensorModel
import Testing
import ThermometerProfiles

@Suite("SwitchBot (service data 0xFD3D and manufacturer data 0x0969, read together)")
struct SwitchBotTests {
    static let service = AdvertisementField.serviceData(SwitchBotProfile.serviceUUID)
    static let maker = AdvertisementField.manufacturerData(SwitchBotProfile.companyID)

    /// One of PySwitchbot's published advertisements: the field decoded, its payload and the
    /// other field's.
    struct Vector: Sendable, CustomTestStringConvertible {
        var field: AdvertisementField
        var companion: [UInt8]?
        var expected: ExpectedReading
        var testDescription: String { "\(field) \(expected.testDescription)" }
    }

    @Test(
        "PySwitchbot's published advertisements decode to the values it shows",
        arguments: [
            // Meter: the manufacturer data's temperature wins; the battery is the service data's.
            Vector(
                field: maker, companion: bytes(hex: "5400e4069835"),
                expected: ExpectedReading(
                    bytes(hex: "d7c17d5deb43de03069835"), [.temperature: 24.6, .humidity: 53, .battery: 100])),
            Vector(
                field: service, companion: bytes(hex: "d7c17d5deb43de03069835"),
                expected: ExpectedReading(
                    bytes(hex: "5400e4069835"), [.temperature: 24.6, .humidity: 53, .battery: 100])),
            // Meter, the service data alone (active scanning, no manufacturer data yet).
            Vector(
                field: service, companion: nil,
                expected: ExpectedReading(
                    bytes(hex: "5400e4069835"), [.temperature: 24.6, .humidity: 53, .battery: 100])),
            // Indoor/Outdoor Meter: the temperature only in the manufacturer data.
            Vector(
                field: maker, companion: bytes(hex: "7700e4"),
                expected: ExpectedReading(
                    bytes(hex: "aabbccddeeffe00f06983500"), [.temperature: 24.6, .humidity: 53, .battery: 100])),
            // Meter Pro (model 0x14 and '4').
            Vector(
                field: maker, companion: bytes(hex: "140064"),
                expected: ExpectedReading(
                    bytes(hex: "b0e9fe52dd84066408972c0005"), [.temperature: 23.8, .humidity: 44, .battery: 100])),
            Vector(
                field: maker, companion: bytes(hex: "340064"),
                expected: ExpectedReading(
                    bytes(hex: "b0e9fe52dd84066408972c0005"), [.temperature: 23.8, .humidity: 44, .battery: 100])),
            // Meter Pro CO₂ ('5'): the carbon dioxide at bytes 13-14 (725 ppm), in range up to
            // 9999 ppm and left out above (40000), as PySwitchbot leaves it out; from the service
            // data too.
            Vector(
                field: maker, companion: bytes(hex: "350064"),
                expected: ExpectedReading(
                    bytes(hex: "b0e9fe543215b7e4079ba4003702d500"),
                    [.temperature: 27.7, .humidity: 36, .battery: 100, .co2: 725])),
            Vector(
                field: service, companion: bytes(hex: "b0e9fe543215b7e4079ba4003702d500"),
                expected: ExpectedReading(
                    bytes(hex: "350064"), [.temperature: 27.7, .humidity: 36, .battery: 100, .co2: 725])),
            Vector(
                field: maker, companion: bytes(hex: "350064"),
                expected: ExpectedReading(
                    bytes(hex: "b0e9fe543215b7e4079ba40037270f00"),
                    [.temperature: 27.7, .humidity: 36, .battery: 100, .co2: 9999])),
            Vector(
                field: maker, companion: bytes(hex: "150064"),
                expected: ExpectedReading(
                    bytes(hex: "b0e9fe543215b7e4079ba400379c4000"), [.temperature: 27.7, .humidity: 36, .battery: 100])),
            // Hub 2: bytes 13-15, no battery.
            Vector(
                field: maker, companion: bytes(hex: "7600"),
                expected: ExpectedReading(
                    bytes(hex: "aabbccddeeff00ff66541af182079a3200"), [.temperature: 26.7, .humidity: 50])),
        ])
    func published(_ vector: Vector) throws {
        try expectReading(
            decode(vector.expected.payload, in: vector.field, companion: vector.companion), vector.expected,
            profile: "switchbot")
    }

    @Test("below zero: bit 7 of the whole degrees clear")
    func belowZero() throws {
        let reading = try #require(decode(bytes(hex: "5400e4050535"), in: Self.service)).get()
        #expect(reading.measurement.celsius == -5.5)
    }

    @Test("nobody's: no service data (the model unknown), another model, zeros, nothing to read")
    func nobodys() {
        let meter = bytes(hex: "d7c17d5deb43de03069835")
        // The manufacturer data alone: 0x0969 is every SwitchBot device's.
        #expect(decode(meter, in: Self.maker) == nil)
        // A Bot ('H'), a curtain ('c').
        for model in ["48", "63"] {
            #expect(decode(meter, in: Self.maker, companion: bytes(hex: model + "00e4")) == nil, "\(model)")
        }
        // Temperature and humidity both zero.
        #expect(decode(bytes(hex: "540000000000"), in: Self.service) == nil)
        // The outdoor meter's service data alone has no temperature, and its battery is not shown alone.
        #expect(decode(bytes(hex: "7700e4"), in: Self.service) == nil)
        // A Hub 2's manufacturer data too short for bytes 13-15.
        #expect(decode(bytes(hex: "aabbccddeeff00ff66541af1"), in: Self.maker, companion: bytes(hex: "7600")) == nil)
    }

    @Test("every truncated length of either field decodes, is refused, or is nobody's, as the other allows")
    func truncations() {
        let service = bytes(hex: "5400e4069835")
        let maker = bytes(hex: "d7c17d5deb43de03069835")
        for length in 1..<maker.count {
            let result = decode(Array(maker.prefix(length)), in: Self.maker, companion: service)
            // Too short for bytes 8-10: the service data's temperature stands in.
            #expect(result?.success?.measurement.celsius == 24.6, "\(length)")
        }
        for length in 1..<service.count {
            let result = decode(Array(service.prefix(length)), in: Self.service, companion: maker)
            // The manufacturer data has the temperature; the battery needs 3 bytes of service data.
            let reading = result?.success
            #expect(reading?.measurement.celsius == 24.6, "\(length)")
            #expect((reading?.measurement.quantities[.battery] != nil) == (length >= 3), "\(length)")
        }
    }

    @Test("a Meter Pro CO₂ cut short: the carbon dioxide only with bytes 13-14, the rest as a meter's")
    func co2Truncations() {
        let service = bytes(hex: "350064")
        let maker = bytes(hex: "b0e9fe543215b7e4079ba4003702d500")
        for length in 1...maker.count {
            let reading = decode(Array(maker.prefix(length)), in: Self.maker, companion: service)?.success
            #expect(reading?.measurement.quantities[.co2] == (length >= 15 ? 725 : nil), "\(length)")
            // Without bytes 8-10 the service data has no temperature either (3 bytes): nobody's.
            #expect((reading != nil) == (length >= 11), "\(length)")
        }
    }

    @Test("the registry pairs the two fields, each the other's companion")
    func companions() {
        let registry = AdvertisementRegistry.standard
        #expect(registry.companion(of: Self.service) == Self.maker)
        #expect(registry.companion(of: Self.maker) == Self.service)
        #expect(registry.companion(of: ruuviField) == nil)
        // Through a whole advertisement: the companion comes from it.
        var decoder = AdvertisementDecoder()
        let advertisement = Advertisement(
            address: sensorAddress, serviceData: [SwitchBotProfile.serviceUUID: bytes(hex: "7700e4")],
            manufacturerData: [SwitchBotProfile.companyID: bytes(hex: "aabbccddeeffe00f06983500")])
        #expect(decoder.decode(advertisement, changed: Self.maker)?.success?.measurement.celsius == 24.6)
    }
}
