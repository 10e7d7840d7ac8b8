import Testing
import SensorModel
import ThermometerProfiles

@Suite("ProfileRegistry and profile UUIDs")
struct ProfileRegistryTests {
    let registry = ProfileRegistry.standard

    @Test(
        "the Pi profile answers to both UUID spellings",
        arguments: [
            "00000001-710e-4a5b-8d75-3e5b444bc3cf", "00000001-710e-4a5b-8d75-3e5b444b3c3f",
            "00000001-710E-4A5B-8D75-3E5B444B3C3F",
        ])
    func piServiceSpellings(_ text: String) throws {
        let uuid = try #require(BluetoothUUID(text))
        let profile = try #require(registry.profile(forService: uuid))
        #expect(profile is PiCPUTemperatureProfile)
    }

    @Test("the Pi characteristics come in both spellings")
    func piCharacteristicSpellings() throws {
        let pi = PiCPUTemperatureProfile()
        for suffix in ["3e5b444bc3cf", "3e5b444b3c3f"] {
            let temperature = try #require(BluetoothUUID("00000002-710e-4a5b-8d75-" + suffix))
            let unit = try #require(BluetoothUUID("00000003-710e-4a5b-8d75-" + suffix))
            #expect(pi.isTemperatureCharacteristic(temperature))
            #expect(!pi.isTemperatureCharacteristic(unit))
            #expect(pi.isUnitCharacteristic(unit))
            #expect(!pi.isUnitCharacteristic(temperature))
        }
        #expect(PiCPUTemperatureProfile.advertisedLocalName == "Thermometer")
    }

    @Test("standard services map to their profiles")
    func standardLookup() throws {
        #expect(
            try #require(registry.profile(forService: BluetoothUUID(UInt16(0x1809))))
                is HealthThermometerProfile)
        #expect(
            try #require(registry.profile(forService: BluetoothUUID(UInt16(0x181A))))
                is EnvironmentalSensingProfile)
        #expect(registry.profile(forService: BluetoothUUID(UInt16(0x180A))) == nil)
        #expect(registry.profile(forService: BluetoothUUID(UInt16(0x2A1C))) == nil)
    }

    @Test("all service UUIDs, in lookup order, without duplicates; those that identify a thermometer by themselves")
    func allServices() {
        let identifying = [
            "00000001-710e-4a5b-8d75-3e5b444bc3cf", "00000001-710e-4a5b-8d75-3e5b444b3c3f",
            "00001809-0000-1000-8000-00805f9b34fb", "0000181a-0000-1000-8000-00805f9b34fb",
        ]
        #expect(registry.identifyingServiceUUIDs.map(\.uuidString) == identifying)
        // Xiaomi's stock service last, followed only on devices configured for it.
        #expect(
            registry.allServiceUUIDs.map(\.uuidString) == identifying + ["ebe0ccb0-7a0a-4b0c-8a1a-6ff2997da3a6"])
        #expect(registry.allTemperatureCharacteristicUUIDs.count == 5)
    }

    @Test("configured Pi spellings are added without touching the original")
    func extraPiUUIDs() throws {
        let extraService = try #require(BluetoothUUID("12345678-1234-1234-1234-1234567890ab"))
        let extraTemperature = try #require(BluetoothUUID("0xfff1"))
        let extraUnit = try #require(BluetoothUUID("0xfff2"))
        let configured = registry.addingPiCPUTemperatureUUIDs(
            services: [extraService, PiCPUTemperatureProfile.defaultServiceUUIDs[0]],
            temperatureCharacteristics: [extraTemperature], unitCharacteristics: [extraUnit])

        #expect(try #require(configured.profile(forService: extraService)) is PiCPUTemperatureProfile)
        #expect(registry.profile(forService: extraService) == nil)
        let pi = try #require(configured.piCPUTemperature)
        #expect(pi.serviceUUIDs == PiCPUTemperatureProfile.defaultServiceUUIDs + [extraService])
        #expect(pi.isTemperatureCharacteristic(extraTemperature))
        #expect(pi.isUnitCharacteristic(extraUnit))
        #expect(configured.allServiceUUIDs.count == 6)
        #expect(configured.profiles.count == 4)
    }

    @Test("adding twice keeps each UUID once")
    func addingIsIdempotent() throws {
        let extra = try #require(BluetoothUUID("0xfff0"))
        let once = PiCPUTemperatureProfile(extraServiceUUIDs: [extra])
        let twice = once.adding(serviceUUIDs: [extra, extra])
        #expect(twice.serviceUUIDs == once.serviceUUIDs)
        #expect(twice.serviceUUIDs.count == 3)
    }

    @Test("a registry without a Pi profile ignores Pi spellings; the first claim wins")
    func customRegistries() throws {
        let bare = ProfileRegistry(profiles: [EnvironmentalSensingProfile()])
        let extra = try #require(BluetoothUUID("0xfff0"))
        let unchanged = bare.addingPiCPUTemperatureUUIDs(services: [extra])
        #expect(unchanged.profile(forService: extra) == nil)
        #expect(unchanged.piCPUTemperature == nil)

        // A configured spelling that collides with a standard service goes to the first profile.
        let colliding = ProfileRegistry.standard.addingPiCPUTemperatureUUIDs(services: [
            BluetoothUUID(UInt16(0x181A))
        ])
        #expect(
            try #require(colliding.profile(forService: BluetoothUUID(UInt16(0x181A))))
                is PiCPUTemperatureProfile)
    }

    @Test("profiles found through the registry decode their own values")
    func decodeThroughRegistry() throws {
        let pi = try #require(
            registry.profile(forService: PiCPUTemperatureProfile.defaultServiceUUIDs[1]))
        #expect(pi.decode(bytes("112.5 F")).success?.celsius == 44.72)
        let ess = try #require(registry.profile(forService: EnvironmentalSensingProfile.serviceUUID))
        #expect(ess.decode([0x29, 0x09]).success?.celsius == 23.45)
    }

    @Test("registries are equal when they look up alike: the same profiles in order, the same UUIDs")
    func equality() throws {
        let extra = try #require(BluetoothUUID("180a"))
        #expect(registry == ProfileRegistry.standard)
        #expect(registry.addingPiCPUTemperatureUUIDs(services: [extra]) != registry)
        #expect(registry.addingPiCPUTemperatureUUIDs(unitCharacteristics: [extra]) != registry)
        #expect(ProfileRegistry(profiles: registry.profiles.reversed()) != registry)
    }
}
