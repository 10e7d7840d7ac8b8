import Central
import MockBlueZ
import TestSupport
import Testing

/// The seed app's CoreBluetooth flow, line by line, in async Swift against the mock.
@Suite("The seed's central flow")
struct SeedFlowTests {
    @Test("power state → scan → discover by name → connect → services → characteristics → read → notify")
    func seedFlow() async throws {
        try await MockFixture.with { fixture in
            let central = fixture.central
            // 1. centralManagerDidUpdateState(.poweredOn)
            #expect(await central.state == .poweredOn)

            // 2. scanForPeripherals(withServices: nil); look at each advertised local name.
            let events = await central.events()
            try await central.scanForPeripherals(matching: ScanFilter(names: ["Thermometer"]))
            var found: Discovery?
            for await event in events {
                if case .discovered(let discovery) = event { found = discovery; break }
            }
            let discovery = try #require(found)
            #expect(discovery.advertisement.localName == "Thermometer")
            #expect(discovery.advertisement.serviceUUIDs.isEmpty)  // cputemp advertises no UUID

            // 3. stopScan(); connect(peripheral)
            await central.stopScan()
            try await central.connect(discovery.peripheral, timeout: Duration.seconds(5).scaled)
            #expect(await central.isReady(discovery.peripheral))

            // 4. discoverServices([thermometer service]) — either UUID spelling.
            let pi = PiCPUTemperatureProfile()
            let services = await central.discoverServices(pi.serviceUUIDs, for: discovery.peripheral)
            let service = try #require(services.first)

            // 5. discoverCharacteristics; read each; subscribe to the temperature.
            let temperature = try #require(
                await central.discoverCharacteristics(pi.temperatureCharacteristicUUIDs, for: service).first)
            let unit = try #require(
                await central.discoverCharacteristics(pi.unitCharacteristicUUIDs, for: service).first)
            let text = try await central.readValue(for: temperature)
            let reading = try pi.decode(text).get()
            #expect((30.0...90.0).contains(reading.celsius ?? .nan))
            #expect(try await central.readValue(for: unit) == Array((reading.unit == .fahrenheit ? "F" : "C").utf8))
            let descriptions = try await readDescriptions(central, temperature)
            #expect(descriptions == ["CPU Temperature"])

            try await central.setNotifyValue(true, for: temperature)
            var notified: [UInt8]?
            for await event in events {
                if case .valueUpdated(let path, let value) = event, path == temperature.path {
                    notified = value
                    break
                }
            }
            #expect(try pi.decode(try #require(notified)).get().raw.hasSuffix(" F"))

            // 6. The peripheral list keeps its advertised name, though BlueZ now shows the GAP name.
            let device = try #require(await central.device(discovery.peripheral.path))
            #expect(device.name == "BlueZ 5.66")
            #expect(discovery.peripheral.name == "Thermometer")

            await central.cancelPeripheralConnection(discovery.peripheral)
        }
    }

    private func readDescriptions(_ central: CentralManager, _ characteristic: Characteristic) async throws -> [String]
    {
        var texts: [String] = []
        for descriptor in await central.discoverDescriptors(for: characteristic)
        where descriptor.uuid == BluetoothUUID(UInt16(0x2901)) {
            texts.append(String(decoding: try await central.readValue(for: descriptor), as: UTF8.self))
        }
        return texts
    }
}
