import Central
import MockBlueZ
import SensorModel
import Testing

@Suite("Advertising sensors against the mock")
struct AdvertisingSensorMonitorTests {
    @Test("every format reaches a reading with its quantities; the encrypted one with the configured key")
    func everyFormat() async throws {
        try await MockFixture.with(scenario: AdvertisementFixture.scenario()) { fixture in
            let (adverts, monitor, log) = await AdvertisementFixture.start(fixture)
            let expected: [(ProfileID, [Quantity])] = [
                ("bthome", [.temperature, .humidity, .battery]),
                ("bthome", [.temperature, .humidity, .battery]),
                ("pvvx", [.temperature, .humidity, .battery, .voltage]),
                ("atc1441", [.temperature, .humidity, .battery, .voltage]),
                ("ruuvi", [.temperature, .humidity, .pressure, .voltage]),
                ("govee-h5075", [.temperature, .humidity, .battery]),
            ]
            for (index, (profile, quantities)) in expected.enumerated() {
                let address = AdvertisementFixture.address(index)
                let measurement = try await log.first(within: .seconds(10), reading(from: address))
                #expect(measurement.profile == profile, "\(address)")
                #expect(measurement.quantities.present.map(\.quantity) == quantities, "\(address)")
                #expect((5.0...35.0).contains(measurement.celsius ?? .nan), "\(address)")
                #expect((20.0...80.0).contains(measurement.quantities[.humidity] ?? .nan), "\(address)")
            }
            // The mock's sensors start at 18 °C + index: the decoded values are the sent ones.
            let pvvx = try await log.first(reading(from: AdvertisementFixture.address(2)))
            #expect(abs((pvvx.celsius ?? 0) - 20) <= 1)
            let ruuvi = try await log.first(reading(from: AdvertisementFixture.address(4)))
            #expect((1000.0...1030.0).contains(ruuvi.quantities[.pressure] ?? .nan))
            #expect(!log.all.contains { if case .readingError = $0 { true } else { false } })
            await AdvertisementFixture.stop(adverts, monitor)
        }
    }

    @Test("Govee formats chosen by the sensor's name (H5100, H5106) read their manufacturer data")
    func goveeByName() async throws {
        var scenario = AdvertisementFixture.scenario(advertisers: 0)
        // (Not at index 1: the fixture's configuration has a BTHome key for that address.)
        let sensors: [(Int, MockAdvertiser.Format, ProfileID)] = [
            (0, .goveeH5100, "govee-h5100"), (2, .goveeH5106, "govee-h5106"),
        ]
        for (index, format, _) in sensors {
            scenario.peripherals.append(MockPeripheral.advertiser(index: index, format: format))
        }
        try await MockFixture.with(scenario: scenario) { fixture in
            let (adverts, monitor, log) = await AdvertisementFixture.start(fixture)
            for (index, format, profile) in sensors {
                let address = MockPeripheral.advertiser(index: index, format: format).address
                let measurement = try await log.first(within: .seconds(10), reading(from: address))
                #expect(measurement.profile == profile, "\(format)")
                #expect((5.0...35.0).contains(measurement.celsius ?? .nan), "\(format)")
            }
            #expect(!log.all.contains { if case .readingError = $0 { true } else { false } })
            await AdvertisementFixture.stop(adverts, monitor)
        }
    }

    @Test("SwitchBot's two fields are read together, each measurement once, the Outdoor Meter's too")
    func switchBot() async throws {
        var scenario = AdvertisementFixture.scenario(advertisers: 0)
        // (Not at index 1: the fixture's configuration has a BTHome key for that address.)
        let sensors: [(Int, MockAdvertiser.Format)] = [(0, .switchBot), (2, .switchBotOutdoor)]
        for (index, format) in sensors {
            scenario.peripherals.append(MockPeripheral.advertiser(index: index, format: format))
        }
        try await MockFixture.with(scenario: scenario) { fixture in
            let (adverts, monitor, log) = await AdvertisementFixture.start(fixture)
            for (index, format) in sensors {
                let address = MockPeripheral.advertiser(index: index, format: format).address
                for _ in 0..<4 {
                    let measurement = try await log.first(
                        after: log.count, within: .seconds(10), reading(from: address))
                    #expect(measurement.profile == "switchbot")
                    #expect(measurement.quantities.present.map(\.quantity) == [.temperature, .humidity, .battery])
                }
                // A measurement's two fields change in one update: one reading, not two alike.
                let readings = log.all.compactMap(reading(from: address)).map(\.quantities)
                #expect(zip(readings, readings.dropFirst()).allSatisfy { $0 != $1 }, "\(format)")
            }
            #expect(!log.all.contains { if case .readingError = $0 { true } else { false } })
            await AdvertisementFixture.stop(adverts, monitor)
        }
    }

    @Test("a meat thermometer: each advertisement's two probes are two readings, neither dropped as the other's repeat")
    func probes() async throws {
        var scenario = AdvertisementFixture.scenario(advertisers: 0)
        let sensor = MockPeripheral.advertiser(index: 0, format: .goveeMeat)
        let address = sensor.address
        scenario.peripherals.append(sensor)
        try await MockFixture.with(scenario: scenario) { fixture in
            let (adverts, monitor, log) = await AdvertisementFixture.start(fixture)
            try await Self.expectProbes([1, 2, 3, 4], from: address, of: "govee-meat", in: log)
            // One advertisement, one pair: probe 2 right after probe 1, 4 after 3, with the same payload.
            let readings = log.all.compactMap(reading(from: address))
            for (first, second) in zip(readings, readings.dropFirst()) where first.probe == 1 || first.probe == 3 {
                #expect(second.probe == first.probe.map { $0 + 1 } && second.raw == first.raw, "\(readings)")
            }
            #expect(!log.all.contains { if case .readingError = $0 { true } else { false } })
            await AdvertisementFixture.stop(adverts, monitor)
        }
    }

    @Test("an iBBQ thermometer (named, company id 0): its plugged probes are one reading each, an unplugged one none")
    func inkbirdBBQ() async throws {
        var scenario = AdvertisementFixture.scenario(advertisers: 0)
        let sensor = MockPeripheral.advertiser(index: 0, format: .inkbirdBBQ)
        let address = sensor.address
        scenario.peripherals.append(sensor)
        try await MockFixture.with(scenario: scenario) { fixture in
            let (adverts, monitor, log) = await AdvertisementFixture.start(fixture)
            try await Self.expectProbes([1, 2, 3, 4], from: address, of: "inkbird-bbq", in: log)
            // An advertisement with probe 4 unplugged (the mock's every other measurement).
            _ = try await log.first(within: .seconds(10), probeReading(3, from: address) { $0.raw.hasSuffix("ffff") })
            // One advertisement: probes 1 to 3 one after another with the same payload, then
            // probe 4 only when it is plugged in.
            let readings = log.all.compactMap(reading(from: address))
            for (index, first) in readings.enumerated() where first.probe == 1 && index + 3 < readings.count {
                let next = readings[index + 1...index + 3]
                let unplugged = first.raw.hasSuffix("ffff")
                #expect(next.map(\.probe) == [2, 3, unplugged ? 1 : 4], "\(readings)")
                #expect(next.prefix(unplugged ? 2 : 3).allSatisfy { $0.raw == first.raw }, "\(readings)")
            }
            #expect(!log.all.contains { if case .readingError = $0 { true } else { false } })
            await AdvertisementFixture.stop(adverts, monitor)
        }
    }

    @Test("a Ruuvi Air's measurement in format 6 and E1 is one reading, none lost; a TP962R's probes each a reading")
    func ruuviAirAndProbeThermometer() async throws {
        var scenario = AdvertisementFixture.scenario(advertisers: 0)
        let air = MockPeripheral.advertiser(index: 0, format: .ruuviAir)
        let probes = MockPeripheral.advertiser(index: 2, format: .thermoProProbe)
        scenario.peripherals += [air, probes]
        try await MockFixture.with(scenario: scenario) { fixture in
            let (adverts, monitor, log) = await AdvertisementFixture.start(fixture)
            for _ in 0..<8 {
                _ = try await log.first(after: log.count, within: .seconds(15), reading(from: air.address))
            }
            let readings = log.all.compactMap(reading(from: air.address))
            #expect(readings.allSatisfy { $0.profile == "ruuvi-air" })
            #expect(
                readings.allSatisfy {
                    $0.quantities.present.map(\.quantity) == [.temperature, .humidity, .pressure, .co2]
                })
            // Both formats heard; each measurement (the sequence's low byte: format 6's byte 15,
            // E1's byte 27) read once, the next one each time.
            #expect(Set(readings.map { $0.raw.prefix(2) }) == ["06", "e1"], "\(readings.map(\.raw))")
            let sequences = readings.map { raw in
                let bytes = Array(raw.raw.utf8)
                let offset = raw.raw.hasPrefix("06") ? 30 : 54
                return UInt8(String(decoding: bytes[offset..<offset + 2], as: UTF8.self), radix: 16)!
            }
            #expect(zip(sequences, sequences.dropFirst()).allSatisfy { $1 == $0 &+ 1 }, "\(sequences)")
            let statistics = await adverts.statistics
            #expect(statistics.duplicates > 0 && statistics.lostPackets == 0)
            for probe: UInt8 in [1, 2] {
                let measurement = try await log.first(within: .seconds(10)) { event -> Measurement? in
                    guard let measurement = reading(from: probes.address)(event), measurement.probe == probe else {
                        return nil
                    }
                    return measurement
                }
                #expect(measurement.profile == "thermopro-probe")
                #expect(measurement.quantities.present.map(\.quantity) == [.temperature, .voltage])
            }
            #expect(!log.all.contains { if case .readingError = $0 { true } else { false } })
            await AdvertisementFixture.stop(adverts, monitor)
        }
    }

    @Test("a Ruuvi humidity over 100 % is left out with a reading error; the temperature and pressure stand")
    func implausibleHumidity() async throws {
        var scenario = AdvertisementFixture.scenario(advertisers: 0)
        var ruuvi = MockPeripheral.advertiser(index: 0, format: .ruuvi)
        if case .advertiser(var advertiser) = ruuvi.kind {
            advertiser.stuckHumidity = 100.5
            ruuvi.kind = .advertiser(advertiser)
        }
        scenario.peripherals.append(ruuvi)
        try await MockFixture.with(scenario: scenario) { fixture in
            let (adverts, monitor, log) = await AdvertisementFixture.start(fixture)
            let address = ruuvi.address
            let measurement = try await log.first(within: .seconds(10), reading(from: address))
            #expect(measurement.quantities.present.map(\.quantity) == [.temperature, .pressure, .voltage])
            let error = try await log.first(readingError(from: address))
            #expect(error.kind == .outOfRange)
            #expect(error.detail == "humidity 100.5 % is outside 0.0...100.0 %")
            // One error per reading, right after it.
            let events = log.all.filter { reading(from: address)($0) != nil || readingError(from: address)($0) != nil }
            let kinds = events.map { reading(from: address)($0) != nil ? "reading" : "error" }
            let alternate = kinds.indices.allSatisfy { kinds[$0] == ($0.isMultiple(of: 2) ? "reading" : "error") }
            #expect(kinds.count >= 2 && alternate, "\(kinds)")
            await AdvertisementFixture.stop(adverts, monitor)
        }
    }

    @Test("a wrong key gives reading errors (decryption failed), never a reading")
    func wrongKey() async throws {
        try await MockFixture.with(scenario: AdvertisementFixture.scenario(advertisers: 2)) { fixture in
            let wrong = try AdvertisementKey.bthome(hex: "00112233445566778899aabbccddeeff")
            let (adverts, monitor, log) = await AdvertisementFixture.start(
                fixture, configuration: AdvertisementFixture.configuration(key: wrong))
            let encrypted = AdvertisementFixture.address(1)
            let error = try await log.first(within: .seconds(10), readingError(from: encrypted))
            #expect(error.kind == .decryptionFailed)
            // The plain sensor beside it reads on.
            _ = try await log.first(reading(from: AdvertisementFixture.address(0)))
            #expect(log.all.compactMap(reading(from: encrypted)).isEmpty)
            await AdvertisementFixture.stop(adverts, monitor)
        }
    }

    @Test("no key for an encrypted sensor: a missing-key reading error")
    func missingKey() async throws {
        try await MockFixture.with(scenario: AdvertisementFixture.scenario(advertisers: 2)) { fixture in
            let (adverts, monitor, log) = await AdvertisementFixture.start(
                fixture, configuration: AdvertisementFixture.configuration(key: nil))
            let error = try await log.first(within: .seconds(10), readingError(from: AdvertisementFixture.address(1)))
            #expect(error.kind == .missingKey)
            await AdvertisementFixture.stop(adverts, monitor)
        }
    }

    @Test("each measurement is reported once, though every one is advertised twice; none lost")
    func deduplicated() async throws {
        try await MockFixture.with(scenario: AdvertisementFixture.scenario()) { fixture in
            let (adverts, monitor, log) = await AdvertisementFixture.start(fixture)
            let (_, raws) = try await AdvertisementFixture.readTenMeasurements(adverts, log)
            // Each reading of the counted formats carries a new counter, so a new payload.
            for (index, values) in raws.enumerated() {
                #expect(zip(values, values.dropFirst()).allSatisfy { $0 != $1 }, "\(index)")
            }
            await AdvertisementFixture.stop(adverts, monitor)
        }
    }

    @Test("a sensor silent past its learned staleness is lost, and read again when it returns")
    func staleness() async throws {
        try await MockFixture.with(scenario: AdvertisementFixture.scenario(advertisers: 2)) { fixture in
            var configuration = AdvertisementFixture.configuration()
            // Long enough that the other sensor's gaps on a busy machine stay below it (a
            // clean-clone CI run's full suite once stalled its readings past 2 s).
            configuration.staleAfter = Duration.seconds(3).scaled
            configuration.staleMargin = Duration.seconds(1).scaled
            let (adverts, monitor, log) = await AdvertisementFixture.start(fixture, configuration: configuration)
            let address = AdvertisementFixture.address(0)
            _ = try await log.first(within: .seconds(10), reading(from: address))
            try await fixture.mock.inject(.outOfRange(times: nil, address: address))
            let mark = log.count
            try await log.first(after: mark, within: .seconds(10)) { event in
                if case .peripheralLost(let lost) = event, lost.description == address { () } else { nil }
            }
            // The other sensor, still heard, is not lost.
            #expect(
                !log.all.contains { event in
                    if case .peripheralLost(let lost) = event {
                        lost.description == AdvertisementFixture.address(1)
                    } else {
                        false
                    }
                })
            await fixture.mock.clearFaults()
            _ = try await log.first(after: log.count, within: .seconds(5), reading(from: address))
            await AdvertisementFixture.stop(adverts, monitor)
        }
    }

    @Test("GATT thermometers connect and stream while advertisements flow")
    func besideThermometers() async throws {
        try await MockFixture.with(scenario: AdvertisementFixture.scenario(thermometers: 2)) { fixture in
            let (adverts, monitor, log) = await AdvertisementFixture.start(fixture)
            _ = try await log.first(reading(from: MockFixture.fahrenheitPi))
            _ = try await log.first(reading(from: MockFixture.celsiusPi))
            // Discovery resumed after the connects: advertisements keep coming.
            for index in 0..<6 {
                _ = try await log.first(
                    after: log.count, within: .seconds(10), reading(from: AdvertisementFixture.address(index)))
            }
            let mark = log.count
            _ = try await log.first(after: mark, within: .seconds(3), reading(from: MockFixture.fahrenheitPi))
            #expect(await fixture.central.isScanning)
            await AdvertisementFixture.stop(adverts, monitor)
        }
    }

    /// Waits for a reading of each of `probes` from `address`: `profile`'s temperature.
    private static func expectProbes(
        _ probes: [UInt8], from address: String, of profile: ProfileID, in log: EventLog
    ) async throws {
        for probe in probes {
            let measurement = try await log.first(within: .seconds(10), probeReading(probe, from: address))
            #expect(measurement.profile == profile)
            #expect(measurement.quantities.present.map(\.quantity) == [.temperature])
        }
    }
}

/// A reading of `probe` from `address` that `accepts`, as a match for ``EventLog/first(after:within:_:)``.
private func probeReading(
    _ probe: UInt8, from address: String, accepts: @escaping @Sendable (Measurement) -> Bool = { _ in true }
) -> @Sendable (SensorEvent) -> Measurement? {
    { event in
        guard let measurement = reading(from: address)(event), measurement.probe == probe, accepts(measurement) else {
            return nil
        }
        return measurement
    }
}
