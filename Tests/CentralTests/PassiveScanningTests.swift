@testable import BlueZClient
@testable import Central
import DBusCore
import MockBlueZ
import SensorModel
import TestSupport
import Testing
import ConcurrencySupport
import UnixSupport

/// `scan_mode` against the mock: passive scanning through BlueZ's experimental
/// `AdvertisementMonitorManager1` (the mock's `--experimental`), or active scanning.
@Suite("Passive scanning (AdvertisementMonitorManager1) against the mock")
struct PassiveScanningTests {
    /// The advertisement monitor alone (no thermometer monitor: nobody else starts discovery),
    /// recording what it asks of discovery and what it logs.
    struct Run {
        let adverts: AdvertisingSensorMonitor
        let events: EventLog
        /// Each call of the monitor's discovery switch: true for discovery kept on.
        let discovery: Locked<[Bool]>
        let lines: Locked<[String]>

        /// What was logged, each line as `level: text`.
        var logged: [String] { lines.withLock { $0 } }
        var warnings: [String] { logged.filter { $0.hasPrefix("warning: ") } }
        var discoveryCalls: [Bool] { discovery.withLock { $0 } }
    }

    /// Every format but Govee's (it needs scan responses).
    static let withoutScanResponses = AdvertisementRegistry(
        profiles: AdvertisementRegistry.standard.profiles.filter { !$0.needsActiveScanning })

    static func scenario(experimental: Bool) -> MockScenario {
        var scenario = AdvertisementFixture.scenario()
        scenario.experimental = experimental
        return scenario
    }

    static func start(
        _ fixture: MockFixture, mode: ScanMode, registry: AdvertisementRegistry = withoutScanResponses
    ) async -> Run {
        var configuration = AdvertisementFixture.configuration()
        configuration.registry = registry
        configuration.scanMode = mode
        let events = EventLog()
        let discovery = Locked<[Bool]>([])
        let lines = Locked<[String]>([])
        let log = Log(level: .debug) { level, line in lines.withLock { $0.append("\(level): \(line)") } }
        let adverts = AdvertisingSensorMonitor(
            central: fixture.central, configuration: configuration, log: log,
            discovery: { on in discovery.withLock { $0.append(on) } }
        ) { events.record($0) }
        await adverts.start()
        let run = Run(adverts: adverts, events: events, discovery: discovery, lines: lines)
        return run
    }

    /// The monitor patterns `registry`'s formats make, as ``AdvertisementPattern`` describes
    /// them: service data UUIDs (AD type 0x16) and company ids (0xFF) little-endian, then the
    /// local names (0x09) of the devices read under any company id. The formats come from
    /// the registry; the encoding is spelled here.
    static func patterns(of registry: AdvertisementRegistry) -> [String] {
        let hex = { (bytes: [UInt8]) in bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }
        let littleEndian = { (value: UInt16) in [UInt8(value & 0xFF), UInt8(value >> 8)] }
        let services = registry.serviceDataUUIDs.compactMap { $0.shortValue.flatMap { UInt16(exactly: $0) } }
        return services.map { "0x16@0 " + hex(littleEndian($0)) }
            + registry.manufacturerIDs.map { "0xff@0 " + hex(littleEndian($0)) }
            + registry.localNamePrefixes.map { "0x9@0 " + hex(Array($0.utf8)) }
    }

    /// Active scanning was chosen: discovery kept on, no monitor registered, `reason` logged.
    static func expectActive(_ run: Run, _ fixture: MockFixture, because reason: String) async {
        #expect(await eventually(within: .seconds(5)) { run.discoveryCalls.last == true })
        #expect(await run.adverts.statistics.scanMode == .active)
        #expect(run.logged.contains { $0.contains("active scanning") && $0.contains(reason) }, "\(run.logged)")
        #expect(await fixture.mock.monitorApps().isEmpty)
    }

    @Test("ScanMode: auto is passive only where offered and no format needs scan responses; passive falls back")
    func resolution() {
        let cases: [(ScanMode, Bool, Bool, ScanMode)] = [
            (.auto, true, false, .passive), (.auto, true, true, .active), (.auto, false, false, .active),
            (.active, true, false, .active), (.passive, true, true, .passive), (.passive, false, false, .active),
        ]
        for (mode, offered, needsActive, expected) in cases {
            #expect(
                mode.resolved(passiveAvailable: offered, needsActive: needsActive) == expected,
                "\(mode) offered \(offered) needsActive \(needsActive)")
        }
    }

    @Test("auto with monitors offered: passive, readings without StartDiscovery, unregistered at shutdown")
    func autoPassive() async throws {
        try await MockFixture.with(scenario: Self.scenario(experimental: true)) { fixture in
            let run = await Self.start(fixture, mode: .auto)
            #expect(
                run.adverts.monitorPatterns.map(\.description) == Self.patterns(of: Self.withoutScanResponses))
            // The encoding, by hand: BTHome's 0xFCD2 little-endian, Inkbird's name `sps`.
            #expect(run.adverts.monitorPatterns.map(\.description).starts(with: ["0x16@0 d2fc"]))
            #expect(run.adverts.monitorPatterns.map(\.description).contains("0x9@0 737073"))
            // BTHome (plain and encrypted), pvvx, ATC1441 and Ruuvi, heard passively.
            for index in 0..<5 {
                _ = try await run.events.first(within: .seconds(10), reading(from: AdvertisementFixture.address(index)))
            }
            #expect(await run.adverts.statistics.scanMode == .passive)
            #expect(fixture.mock.startDiscoveryCalls == 0)
            #expect(await fixture.mock.monitorApps().count == 1)
            #expect(await eventually(within: .seconds(5)) { run.logged.contains { $0.contains("monitor is active") } })
            #expect(run.logged.contains { $0.contains("passive scanning") })
            #expect(!run.discovery.withLock { $0.contains(true) })
            await run.adverts.shutdown()
            #expect(await eventually(within: .seconds(5)) { await fixture.mock.monitorApps().isEmpty })
            #expect(fixture.mock.startDiscoveryCalls == 0)
        }
    }

    @Test("Inkbird and ThermoPro, whose company id is data, are heard passively by name; old keys are not read again")
    func companyIDIsData() async throws {
        var scenario = AdvertisementFixture.scenario(advertisers: 0)
        scenario.experimental = true
        // (Not at index 1: the fixture's configuration has a BTHome key for that address.)
        let sensors: [(Int, MockAdvertiser.Format, ProfileID)] = [
            (0, .inkbird, "inkbird"), (2, .thermoPro, "thermopro"), (3, .inkbirdITH, "inkbird"),
        ]
        for (index, format, _) in sensors {
            var sensor = MockPeripheral.advertiser(index: index, format: format)
            sensor.advertisingInterval = .milliseconds(50)
            scenario.peripherals.append(sensor)
        }
        try await MockFixture.with(scenario: scenario) { fixture in
            let run = await Self.start(fixture, mode: .passive)
            for (index, format, profile) in sensors {
                let address = MockPeripheral.advertiser(index: index, format: format).address
                let measurement = try await run.events.first(within: .seconds(10), reading(from: address))
                #expect(measurement.profile == profile, "\(format)")
                #expect(measurement.quantities.present.map(\.quantity) == [.temperature, .humidity, .battery])
            }
            // Passive scanning leaves the entries of earlier advertisements in BlueZ's
            // ManufacturerData, under the temperatures they were sent at: only the new one is
            // read, so the mock's counter (bytes 3-4 of the IBS-TH1's payload) only goes up.
            let inkbird = MockPeripheral.advertiser(index: 0, format: .inkbird).address
            for _ in 0..<8 {
                _ = try await run.events.first(after: run.events.count, within: .seconds(10), reading(from: inkbird))
            }
            let readings = run.events.all.compactMap(reading(from: inkbird))
            let counters = readings.map {
                Int($0.raw.dropFirst(6).prefix(4), radix: 16).map { $0 >> 8 | ($0 & 0xFF) << 8 } ?? -1
            }
            #expect(zip(counters, counters.dropFirst()).allSatisfy { $0 < $1 }, "\(counters)")
            // The temperature moved, so the key did: old keys were there to be misread.
            #expect(Set(readings.compactMap(\.celsius)).count > 1, "\(readings.map(\.celsius))")
            #expect(!run.events.all.contains { if case .readingError = $0 { true } else { false } })
            await run.adverts.shutdown()
        }
    }

    @Test("two adapters: a monitor on each, and sensors only the second hears are read passively (issue 36)")
    func passiveOnEveryAdapter() async throws {
        var scenario = Self.scenario(experimental: true)
        scenario.adapters = MockScenario.standard(adapters: 2).adapters
        try scenario.setSignal(.outOfRange, adapter: "hci0")
        try await MockFixture.with(scenario: scenario, options: CentralOptions(adapters: .automatic)) { fixture in
            let run = await Self.start(fixture, mode: .passive)
            for index in 0..<5 {
                do {
                    _ = try await run.events.first(
                        within: .seconds(10), reading(from: AdvertisementFixture.address(index)))
                } catch {
                    Issue.record("no reading from sensor \(index): \(run.logged), \(await fixture.mock.monitorApps())")
                    throw error
                }
            }
            let apps = await fixture.mock.monitorApps().map { $0.split(separator: " ").first.map(String.init) }
            #expect(apps == ["hci0", "hci1"])
            #expect(await run.adverts.statistics.scanMode == .passive)
            #expect(fixture.mock.startDiscoveryCalls == 0)
            #expect(
                run.logged.contains { $0.contains("passive scanning on hci1 too") || $0.contains("monitor on hci1") })
            await run.adverts.shutdown()
            #expect(await eventually(within: .seconds(5)) { await fixture.mock.monitorApps().isEmpty })
        }
    }

    @Test("auto with a format that needs scan responses (Govee): active, no monitor registered")
    func autoActiveForGovee() async throws {
        try await MockFixture.with(scenario: Self.scenario(experimental: true)) { fixture in
            let run = await Self.start(fixture, mode: .auto, registry: .standard)
            await Self.expectActive(run, fixture, because: "scan responses")
            #expect(run.warnings.isEmpty)
            await run.adverts.shutdown()
        }
    }

    @Test("auto where bluetoothd offers no monitors (no --experimental): active, no warning")
    func autoActiveWithoutMonitors() async throws {
        try await MockFixture.with(scenario: Self.scenario(experimental: false)) { fixture in
            let run = await Self.start(fixture, mode: .auto)
            await Self.expectActive(run, fixture, because: "--experimental")
            #expect(run.warnings.isEmpty)
            await run.adverts.shutdown()
        }
    }

    @Test("passive where bluetoothd offers no monitors: a warning naming --experimental, and active scanning")
    func passiveUnavailable() async throws {
        try await MockFixture.with(scenario: Self.scenario(experimental: false)) { fixture in
            let run = await Self.start(fixture, mode: .passive)
            await Self.expectActive(run, fixture, because: "--experimental")
            #expect(
                run.warnings.contains {
                    $0.contains("scan_mode = passive, but hci0 offers no AdvertisementMonitorManager1")
                        && $0.contains("--experimental") && $0.contains("scanning actively")
                })
            await run.adverts.shutdown()
        }
    }

    @Test("passive with Govee enabled: a warning that its sensors go unheard; the others are read")
    func passiveWithGovee() async throws {
        try await MockFixture.with(scenario: Self.scenario(experimental: true)) { fixture in
            let run = await Self.start(fixture, mode: .passive, registry: .standard)
            let scanResponseFormats = AdvertisementRegistry.standard.profiles.filter(\.needsActiveScanning)
                .map(\.id.rawValue).joined(separator: ", ")
            #expect(scanResponseFormats.contains("govee-h5075"))
            #expect(
                run.warnings.contains {
                    $0.contains("\(scanResponseFormats) send their data in scan responses")
                })
            // Two measurements of every other sensor, and still nothing of the Govee's.
            for index in 0..<5 {
                let address = AdvertisementFixture.address(index)
                let first = try await run.events.first(within: .seconds(10), reading(from: address))
                _ = try await run.events.first(within: .seconds(10)) { event in
                    reading(from: address)(event).flatMap { $0 == first ? nil : $0 }
                }
            }
            #expect(run.events.all.compactMap(reading(from: AdvertisementFixture.address(5))).isEmpty)
            #expect(await run.adverts.statistics.scanMode == .passive)
            #expect(fixture.mock.startDiscoveryCalls == 0)
            await run.adverts.shutdown()
        }
    }

    @Test("the patterns go to monitors of at most 7 (bluetoothd 5.66 aborts on an 8th), activated as one")
    func monitorsOfSevenPatterns() async throws {
        let patterns = (0..<15).map { AdvertisementPattern.manufacturer(UInt16($0)) }
        #expect(BlueZService.monitorGroups(patterns).map(\.count) == [7, 7, 1])
        #expect(BlueZService.monitorGroups(Array(patterns.prefix(7))).map(\.count) == [7])
        #expect(BlueZService.monitorGroups([]).map(\.count) == [0])
        try await MockFixture.with(scenario: Self.scenario(experimental: true)) { fixture in
            // The patterns of every format but Govee's (12 when one monitor of them all made
            // bluetoothd 5.66 abort in the e2e rig; the mock refuses such a monitor).
            let run = await Self.start(fixture, mode: .passive)
            let total = run.adverts.monitorPatterns.count
            #expect(total > 14, "enough patterns for three monitors")
            #expect(await eventually(within: .seconds(5)) { await run.adverts.statistics.scanMode == .passive })
            #expect(await eventually(within: .seconds(5)) { run.logged.contains { $0.contains("monitor is active") } })
            let probe = try await DBusConnection.connect(to: .address(fixture.bus.address), label: "probe")
            let objects = try await probe.call(
                destination: fixture.central.client.connection.uniqueName,
                path: "/org/blectl/advertisement_monitor/hci0",
                interface: "org.freedesktop.DBus.ObjectManager", member: "GetManagedObjects"
            ).decodeSingle([ObjectPath: [String: [String: DBusValue]]].self)
            let counts = objects.sorted { $0.key < $1.key }.map { _, interfaces in
                guard
                    case .array(_, let values)? = interfaces["org.bluez.AdvertisementMonitor1"]?["Patterns"]?
                        .unwrappingVariants
                else { return -1 }
                return values.count
            }
            let expected = stride(from: 0, to: total, by: 7).map { min(7, total - $0) }
            #expect(counts == expected, "\(objects.keys)")
            #expect(run.logged.filter { $0.contains("monitor is active") }.count == 1, "\(run.logged)")
            #expect(run.warnings.isEmpty, "\(run.warnings)")
            _ = try await run.events.first(within: .seconds(10), reading(from: AdvertisementFixture.address(0)))
            #expect(fixture.mock.startDiscoveryCalls == 0)
            await probe.close()
            await run.adverts.shutdown()
            #expect(await eventually(within: .seconds(5)) { await fixture.mock.monitorApps().isEmpty })
        }
    }

    @Test("calls on the monitor from anyone but bluetoothd are refused and change nothing")
    func strangersAreRefused() async throws {
        try await MockFixture.with(scenario: Self.scenario(experimental: true)) { fixture in
            let run = await Self.start(fixture, mode: .auto)
            #expect(await eventually(within: .seconds(5)) { await run.adverts.statistics.scanMode == .passive })
            let target = fixture.central.client.connection.uniqueName
            let stranger = try await DBusConnection.connect(to: .address(fixture.bus.address), label: "stranger")
            do {
                _ = try await stranger.call(
                    destination: target, path: "/org/blectl/advertisement_monitor/hci0/sensors0",
                    interface: "org.bluez.AdvertisementMonitor1", member: "Release")
                Issue.record("Release from another program was accepted")
            } catch let error as DBusError {
                #expect(error.name == DBusError.Name.accessDenied, "\(error)")
            }
            #expect(await run.adverts.statistics.scanMode == .passive)
            #expect(!run.discoveryCalls.contains(true))
            await stranger.close()
            await run.adverts.shutdown()
        }
    }

    @Test("bluetoothd restarting: the monitor is registered again with the new bluetoothd, readings go on")
    func reRegistersAfterRestart() async throws {
        try await MockFixture.with(scenario: Self.scenario(experimental: true)) { fixture in
            let run = await Self.start(fixture, mode: .auto)
            let address = AdvertisementFixture.address(2)
            _ = try await run.events.first(within: .seconds(10), reading(from: address))
            let activations = { run.logged.filter { $0.contains("monitor is active") }.count }
            #expect(await eventually(within: .seconds(5)) { activations() == 1 })
            try await fixture.mock.inject(.stopBluetoothd(restartAfter: .milliseconds(300)))
            // The new bluetoothd knows the monitor (registered again) and activates it.
            #expect(
                await eventually(within: .seconds(10)) {
                    let apps = await fixture.mock.monitorApps()
                    return activations() == 2 && apps.count == 1
                }, "\(run.logged)")
            let mark = run.events.count
            _ = try await run.events.first(after: mark, within: .seconds(10), reading(from: address))
            #expect(await run.adverts.statistics.scanMode == .passive)
            #expect(fixture.mock.startDiscoveryCalls == 0)
            await run.adverts.shutdown()
        }
    }
}
