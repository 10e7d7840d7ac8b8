import SensorModel
import Testing
import ThermometerProfiles

@Suite("Sensor families: one declaration per profile, and the decoders keep to it")
struct SensorFamilyTests {
    @Test("the catalog lists every profile of both registries and the host CPU, once each, fully declared")
    func catalogIsComplete() {
        let catalog = KnownSensors.catalog
        let expected =
            ProfileRegistry.standard.profiles.map(\.id) + AdvertisementRegistry.standard.profiles.map(\.id)
            + [HostCPUProfile.family.id]
        #expect(catalog.families.map(\.id) == expected)
        #expect(Set(expected).count == expected.count)
        for family in catalog.families {
            #expect(!family.name.isEmpty && !family.manufacturer.isEmpty, "\(family.id)")
            #expect(!family.models.isEmpty && !family.quantities.isEmpty, "\(family.id)")
            #expect(catalog[family.id] == family)
        }
    }

    @Test("every advertisement reading carries only its family's quantities, and a counter of its width")
    func advertisementsKeepToTheirFamily() throws {
        var decoded: Set<ProfileID> = []
        for (payload, field, name) in goodAdvertisements {
            // The keys only for the encrypted packets: with them, the plain ones are downgrades.
            let keys =
                payload == EncryptedVectors.counter1000
                ? EncryptedVectors.keys : payload == PVVXEncryptedVectors.custom ? PVVXEncryptedVectors.keys : [:]
            var decoder = AdvertisementDecoder(keys: keys)
            let result = decoder.decode(payload, in: field, name: name, from: sensorAddress)
            let reading = try #require(result).get()
            let family = try #require(KnownSensors.catalog[reading.measurement.profile])
            decoded.insert(family.id)
            for (quantity, _) in reading.measurement.quantities.present {
                #expect(family.quantities.contains(quantity), "\(family.id) declares no \(quantity)")
            }
            if let counter = reading.counter {
                #expect(UInt64(counter) < reading.counterModulus)
                if !reading.isAuthenticated { #expect(reading.counterModulus == family.counterModulus) }
            } else {
                #expect(family.counterModulus == nil || reading.isAuthenticated, "\(family.id) lost its counter")
            }
        }
        #expect(decoded == Set(AdvertisementRegistry.standard.profiles.map(\.id)))
    }

    @Test("a GATT or host reading carries its family's quantities; text families keep the text as raw")
    func gattAndHostKeepToTheirFamily() throws {
        let pi = Array("112.5 F".utf8)
        let health: [UInt8] = [0x00, 0x72, 0x01, 0x00, 0xFF]
        let ess: [UInt8] = [0x1C, 0x09]
        let readings = [
            (pi, PiCPUTemperatureProfile().decode(pi)),
            (health, HealthThermometerProfile().decode(health)),
            (ess, EnvironmentalSensingProfile().decode(ess)),
            (Array("47312\n".utf8), HostCPUProfile.decode("47312\n", path: "temp")),
        ]
        for (input, result) in readings {
            let measurement = try result.get()
            let family = try #require(KnownSensors.catalog[measurement.profile])
            #expect(measurement.quantities.present.allSatisfy { family.quantities.contains($0.quantity) })
            #expect(family.sendsText == (measurement.raw != input.hexString), "\(family.id)")
        }
    }

    @Test("the host CPU: millidegrees in one word, anything else is an error with the text")
    func hostCPU() throws {
        #expect(try HostCPUProfile.decode(" 47312\n", path: "t").get().celsius == 47.31)
        #expect(try HostCPUProfile.decode("-1500", path: "t").get().celsius == -1.5)
        for bad in ["", "47 312", "warm", "999999"] {
            guard case .failure(let error) = HostCPUProfile.decode(bad, path: "t") else {
                Issue.record("\(bad.debugDescription) decoded")
                continue
            }
            #expect(error.raw == Array(bad.utf8) || bad.isEmpty)
        }
    }

    @Test("a profile no catalog lists is described by its id, with every quantity")
    func unknownFamily() {
        let family = KnownSensors.catalog.family(of: "from-a-newer-peer")
        #expect(family.id == "from-a-newer-peer" && family.models == ["from-a-newer-peer"])
        #expect(family.quantities == Quantity.allCases && family.counterModulus == nil)
    }

    @Test("a family's quantities are kept in Quantity order, and its model label joins its models")
    func declarationOrder() {
        let family = SensorFamily(
            id: "t", name: "T", manufacturer: "M", models: ["A", "B"], quantities: [.voltage, .temperature])
        #expect(family.quantities == [.temperature, .voltage])
        #expect(family.modelLabel == "A / B")
    }
}
