import Testing
import SensorModel
import ThermometerProfiles

@Suite("AdvertisementDecoder and AdvertisementRegistry")
struct AdvertisementDecoderTests {
    let bthomePacket = bytes(hex: "40 02 C4 09 03 BF 13")
    let pvvxPacket = bytes(hex: "dc3312342d58 2f09 aa17 3d0b 4b 7c 05")
    let govee5075Packet = bytes(hex: "00 0418ee 64 00")
    /// Apple's iBeacon, which Govee thermometers also send (company 0x004C).
    let iBeacon = bytes(hex: "0215 494e54454c4c495f524f434b535f48 5750 75f2 ff c2")

    @Test("the standard registry lists every decoder, in lookup order")
    func standard() {
        let registry = AdvertisementRegistry.standard
        #expect(
            registry.profiles.map(\.id) == [
                "bthome", "bthome-v1", "pvvx", "atc1441", "pvvx-encrypted", "ruuvi-air", "ruuvi", "govee-h5075",
                "govee-h5074",
                "govee-h5051",
                "govee-h5100",
                "govee-h5106", "govee-b5178", "govee-h5179", "govee-meat", "mibeacon", "qingping", "thermobeacon",
                "inkbird", "inkbird-bbq",
                "thermopro", "thermopro-probe", "switchbot", "sensorpush", "bluemaestro",
            ])
        #expect(
            registry.serviceDataUUIDs == [
                BluetoothUUID(UInt16(0xFCD2)), BluetoothUUID(UInt16(0x181C)), BluetoothUUID(UInt16(0x181E)),
                BluetoothUUID(UInt16(0x181A)), BluetoothUUID(UInt16(0xFE95)),
                BluetoothUUID(UInt16(0xFDCD)), BluetoothUUID(UInt16(0xFD3D)),
            ])
        #expect(
            registry.manufacturerIDs == [0x0499, 0xEC88, 0x0001, 0x8801] + GoveeMeatProfile.companyIDs
                + ThermoBeaconProfile.companyIDs + [
                    0x0969, 0x0133,
                ])
        #expect(registry.needsActiveScanning)
        #expect(!AdvertisementRegistry(profiles: [BTHomeProfile(), RuuviProfile()]).needsActiveScanning)
        #expect(registry.profiles(reading: environmentalField).map(\.id) == ["pvvx", "atc1441", "pvvx-encrypted"])
        #expect(registry.profiles(reading: .manufacturerData(0x004C)).isEmpty)
        #expect(
            registry.localNamePrefixes == [
                "sps", "tps", "ITH-11-B", "ITH-13-B", "ITH-21-B", "IBS-P02B", "iBBQ", "xBBQ", "TP35", "TP39", "TP96",
                "TP97",
                "s",
                "SensorPush HT.w", "SensorPush HTP.xw",
            ])
        #expect(
            registry.readsAnyManufacturerData(from: "ith-13-b")
                && registry.readsAnyManufacturerData(from: "TP393 (9376)"))
        #expect(!registry.readsAnyManufacturerData(from: "sps2") && !registry.readsAnyManufacturerData(from: nil))
    }

    @Test("fields describe themselves for log lines")
    func fieldDescriptions() {
        #expect(bthomeField.description == "service data 0xfcd2")
        #expect(AdvertisementField.manufacturerData(0x004C).description == "manufacturer data 0x004c")
        #expect(
            AdvertisementField.serviceData(PiCPUTemperatureProfile.defaultServiceUUIDs[0]).description
                == "service data 00000001-710e-4a5b-8d75-3e5b444bc3cf")
    }

    @Test("only the key that changed is decoded: BlueZ keeps the others from earlier advertisements")
    func changedKeyOnly() throws {
        var decoder = AdvertisementDecoder()
        let govee = Advertisement(
            address: sensorAddress, manufacturerData: [0x004C: iBeacon, 0xEC88: govee5075Packet])
        #expect(decoder.decode(govee, changed: .manufacturerData(0x004C)) == nil)
        let reading = try #require(decoder.decode(govee, changed: goveeField)?.success)
        #expect(reading.measurement.profile == "govee-h5075")
        #expect(decoder.decode(govee, changed: ruuviField) == nil)  // not in the advertisement
    }

    @Test("a device switching between formats is read in the format of the key that changed")
    func switchingFormats() throws {
        var decoder = AdvertisementDecoder()
        let both = Advertisement(
            address: sensorAddress,
            serviceData: [PVVXProfile.serviceUUID: pvvxPacket, BTHomeProfile.serviceUUID: bthomePacket])
        let bthome = try #require(decoder.decode(both, changed: bthomeField)?.success)
        #expect(bthome.measurement.profile == "bthome")
        #expect(bthome.measurement.quantities == Quantities([.temperature: 25, .humidity: 50.55]))
        let pvvx = try #require(decoder.decode(both, changed: environmentalField)?.success)
        #expect(pvvx.measurement.profile == "pvvx")
        #expect(pvvx.counter == 124)
        // The same bytes under the other format's key are that format's problem, not a guess.
        #expect(decoder.decode(pvvxPacket, in: bthomeField, from: sensorAddress)?.failure?.kind == .unsupportedVersion)
        #expect(decoder.decode(bthomePacket, in: environmentalField, from: sensorAddress) == nil)
    }

    @Test("payloads of known fields are checked for length first; unknown fields are nobody's")
    func lengths() throws {
        for field in [bthomeField, environmentalField, ruuviField, goveeField] {
            #expect(decode([], in: field)?.failure?.kind == .empty)
            let huge = [UInt8](repeating: 0x05, count: 65)
            #expect(decode(huge, in: field)?.failure?.kind == .oversized)
            #expect(decode(huge, in: field)?.failure?.raw == huge)
        }
        #expect(decode([], in: .manufacturerData(0x004C)) == nil)
        #expect(decode(iBeacon, in: .serviceData(BluetoothUUID(UInt16(0x180F)))) == nil)
    }

    @Test("profiles called directly never trap on an empty payload")
    func emptyToProfiles() {
        var keyring = AdvertisementKeyring()
        for profile in AdvertisementRegistry.standard.profiles {
            switch profile.decode([], from: sensorAddress, keyring: &keyring) {
            case nil: break
            case .failure(let error)?: #expect(error.kind == .empty)
            case .success?: Issue.record("\(profile.id) decoded nothing into a reading")
            }
        }
    }

    @Test("unencrypted devices leave no state in the keyring")
    func noStateForPlainDevices() {
        var decoder = AdvertisementDecoder()
        for last in UInt8(0)..<200 {
            let address = BluetoothAddress(value: 0xA4C1_3800_0000 | UInt64(last))
            _ = decoder.decode(bthomePacket, in: bthomeField, from: address)
            _ = decoder.decode(pvvxPacket, in: environmentalField, from: address)
        }
        #expect(decoder.keyring.replayGuards.isEmpty)
    }

    @Test("a custom registry decodes only its own formats")
    func customRegistry() {
        var decoder = AdvertisementDecoder(registry: AdvertisementRegistry(profiles: [RuuviProfile()]))
        #expect(decoder.decode(bthomePacket, in: bthomeField, from: sensorAddress) == nil)
        #expect(decoder.registry.profiles.count == 1)
    }
}

@Suite("Advertisement robustness")
struct AdvertisementRobustnessTests {
    static let fields = [bthomeField, environmentalField, ruuviField, goveeField]

    /// Checks whatever a payload decoded to: a plausible, rounded reading, an error with the
    /// payload, or nothing.
    static func check(_ result: Result<AdvertisementReading, ReadingError>?, payload: [UInt8]) -> (Int, Int) {
        switch result {
        case .success(let reading)?:
            #expect(!reading.measurement.quantities.isEmpty)
            for (quantity, value) in reading.measurement.quantities.present {
                #expect(ReadingLimits.plausibleRange(of: quantity).contains(value), "\(quantity) \(value)")
                let steps = Double(ReadingLimits.stepsPerUnit(of: quantity))
                #expect(value == (value * steps).rounded() / steps, "\(quantity) \(value) is not rounded")
            }
            #expect(reading.measurement.raw == payload.hexString)
            return (1, 0)
        case .failure(let error)?:
            #expect(error.raw == payload)
            #expect(!error.description.isEmpty)
            return (0, 1)
        case nil:
            return (0, 0)
        }
    }

    @Test("random payloads never trap; every reading is plausible and rounded, every error keeps the bytes")
    func randomPayloads() {
        var generator = SplitMix64(state: 0xAD5)
        var decoder = AdvertisementDecoder(keys: EncryptedVectors.keys)
        var readings = 0
        var errors = 0
        for round in 0..<20_000 {
            let field = Self.fields[round % Self.fields.count]
            // The lengths the formats use, more often than any other.
            let length =
                round.isMultiple(of: 3)
                ? [6, 7, 13, 15, 24].randomElement(using: &generator)!
                : Int.random(in: 0...40, using: &generator)
            var payload = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            // Give BTHome a valid header and Ruuvi its format byte half the time.
            if round.isMultiple(of: 2), !payload.isEmpty { payload[0] = field == ruuviField ? 5 : 0x40 }
            let address = round.isMultiple(of: 5) ? sensorAddress : BluetoothAddress(value: UInt64(round))
            let (read, failed) = Self.check(decoder.decode(payload, in: field, from: address), payload: payload)
            readings += read
            errors += failed
        }
        // Both outcomes must occur, or this test checks nothing. (Random bytes are rarely a
        // plausible humidity, so readings are the rarer: 178 with this seed.)
        #expect(readings > 100)
        #expect(errors > 1_000)
    }

    @Test("every prefix and extension of every known-good payload decodes, is refused, or is nobody's")
    func shortAndLong() {
        for (payload, field, name) in goodAdvertisements {
            for length in 0...payload.count + 8 {
                let bytes = Array((payload + [UInt8](repeating: 0xA5, count: 8)).prefix(length))
                var decoder = AdvertisementDecoder(keys: EncryptedVectors.keys)
                _ = Self.check(decoder.decode(bytes, in: field, name: name, from: sensorAddress), payload: bytes)
            }
        }
    }
}
