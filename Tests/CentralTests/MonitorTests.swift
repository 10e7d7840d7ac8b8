import Central
import DBusCore
import MockBlueZ
import Testing
import SensorModel
import ConcurrencySupport

@Suite("The thermometer monitor against the mock")
struct MonitorTests {
    @Test("two thermometers at once, one per UUID spelling, °F and °C both normalised")
    func twoThermometers() async throws {
        try await MockFixture.with { fixture in
            let (monitor, log) = await startMonitor(fixture)
            let fahrenheit = try await log.first(reading(from: MockFixture.fahrenheitPi))
            let celsius = try await log.first(reading(from: MockFixture.celsiusPi))
            #expect(fahrenheit.unit == .fahrenheit && fahrenheit.raw.hasSuffix(" F"))
            #expect(celsius.unit == .celsius && celsius.raw.hasSuffix(" C"))
            for reading in [fahrenheit, celsius] { #expect((30.0...90.0).contains(reading.celsius ?? .nan)) }
            // Notifications keep coming (every 200 ms in this world).
            let mark = log.count
            _ = try await log.first(after: mark, within: .seconds(3), reading(from: MockFixture.fahrenheitPi))
            // Non-thermometers are seen (waited for: the scan may find them after the
            // thermometers' first readings) but never connected.
            _ = try await log.first { event -> Bool? in
                guard case .peripheralSeen(let sighting) = event, !sighting.isThermometer else { return nil }
                return true
            }
            #expect(
                await monitor.thermometers.map(\.description).sorted() == [
                    MockFixture.fahrenheitPi, MockFixture.celsiusPi,
                ])
            await monitor.shutdown()
        }
    }

    @Test("many thermometers found at once connect in batches, not one per scan pause")
    func manyThermometers() async throws {
        let count = 100
        // Every 100 ms the scan hears each thermometer; the first hears them 20 ms apart.
        try await MockFixture.with(scenario: MockFixture.scenario(thermometers: count, others: 0)) { fixture in
            let pauses = try await ScanPauses.count(on: fixture.bus.address)
            var configuration = quickConfiguration()
            configuration.connectBatchWindow = Duration.milliseconds(300).scaled
            // Every thermometer at once: this is about batching scan pauses, not the limits.
            configuration.maxConnecting = count
            configuration.maxConnections = count
            let (monitor, log) = await startMonitor(fixture, configuration: configuration)
            for index in 1...count {
                let address = "DC:A6:32:00:00:" + String(index, radix: 16, uppercase: true).leftPadded(to: 2)
                _ = try await log.first(within: .seconds(60)) { event in
                    if case .connected(let connected, _) = event, connected.description == address { true } else { nil }
                }
            }
            // One pause per thermometer (each serving only the first one heard when the scan
            // resumes) would be about 100; batches take a handful.
            #expect(pauses.value < count / 4, "scan paused \(pauses.value) times")
            await monitor.shutdown()
            await pauses.connection.close()
        }
    }

    @Test("readNow returns a fresh value from the peripheral")
    func readNow() async throws {
        try await MockFixture.with { fixture in
            let (monitor, log) = await startMonitor(fixture)
            _ = try await log.first(reading(from: MockFixture.fahrenheitPi))
            try await fixture.mock.setPattern(.constant, address: MockFixture.fahrenheitPi)
            try await fixture.mock.setTemperature(40.0, address: MockFixture.fahrenheitPi)
            let mark = log.count
            try await monitor.readNow(BluetoothAddress(MockFixture.fahrenheitPi)!)
            // The value read is reported before readNow returns (as the read's echo or the reply).
            let reported = log.all.dropFirst(mark).compactMap { reading(from: MockFixture.fahrenheitPi)($0) }
            #expect(reported.last?.raw == "104.0 F")
            #expect(reported.last?.celsius == 40.0)
            await monitor.shutdown()
        }
    }

    @Test("malformed values become reading errors with their raw bytes, and good values follow")
    func malformedValues() async throws {
        try await MockFixture.with { fixture in
            let (monitor, log) = await startMonitor(fixture)
            _ = try await log.first(reading(from: MockFixture.fahrenheitPi))
            for value in MockMalformedValue.allCases {
                let mark = log.count
                try await fixture.mock.inject(.malformedValues(value, times: 1, address: MockFixture.fahrenheitPi))
                let error = try await log.first(after: mark) { event -> ReadingError? in
                    if case .readingError(let address, _, let error) = event,
                        address.description == MockFixture.fahrenheitPi
                    {
                        return error
                    }
                    return nil
                }
                #expect(error.raw == value.bytes, "\(value)")
                _ = try await log.first(after: mark, reading(from: MockFixture.fahrenheitPi))
            }
            await monitor.shutdown()
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}

/// Counts the adapter's `Discovering=false` signals: each is a pause of the scan.
struct ScanPauses {
    let connection: DBusConnection
    private let pauses: Locked<Int>

    var value: Int { pauses.withLock { $0 } }

    static func count(on address: String) async throws -> ScanPauses {
        let connection = try await DBusConnection.connect(to: .address(address), label: "test-pauses")
        let pauses = Locked(0)
        let rule = MatchRule(
            interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged", path: "/org/bluez/hci0")
        _ = try await connection.addSignalHandler(rule) { message in
            guard let entries = message.arguments.dropFirst().first?.dictionaryEntries,
                entries.contains(where: {
                    $0.key == .string("Discovering") && $0.value.unwrappingVariants == .boolean(false)
                })
            else { return }
            pauses.withLock { $0 += 1 }
        }
        return ScanPauses(connection: connection, pauses: pauses)
    }
}
