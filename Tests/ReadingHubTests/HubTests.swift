import BlectlProtocol
import HistoryStore
@testable import ReadingHub
import Synchronization
import TestSupport
import SensorModel
import Testing
import UnixSupport

/// A clock tests move by hand.
final class ManualClock: Sendable {
    private let current = Mutex(Timestamp(millisecondsSince1970: 1_796_000_000_000))

    var now: Timestamp { current.withLock { $0 } }

    func advance(by seconds: Double) {
        current.withLock { $0.millisecondsSince1970 += Int64((seconds * 1000).rounded()) }
    }
}

/// Collects what a hub broadcasts.
final class EventLog: Sendable {
    private let events = Mutex<[Event]>([])

    var all: [Event] { events.withLock { $0 } }

    func append(_ event: Event) {
        events.withLock { $0.append(event) }
    }
}

@Suite("Hub")
struct HubTests {
    let pi: BluetoothAddress = "DC:A6:32:01:02:03"
    let other: BluetoothAddress = "AA:BB:CC:DD:EE:FF"

    private func makeHub(central: (any CentralControl)? = nil, clock: ManualClock = ManualClock()) -> Hub {
        Hub(central: central, now: { clock.now })
    }

    /// A hub with a history store in a temporary directory, as blectld wires them.
    private func withHistory(
        directory: TemporaryDirectory = TemporaryDirectory(), _ body: (Hub) async throws -> Void
    ) async throws {
        let store = try HistoryStore.open(path: directory.path, log: Log(level: .warning))
        let hub = Hub(lastSeq: store.lastSeq)
        await hub.attach(history: store)
        do {
            try await body(hub)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    @Test("Readings get increasing seq across devices, and history resumes after any seq")
    func historyResume() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try await withHistory(directory: directory) { hub in
            for index in 0..<6 {
                let isPi = index.isMultiple(of: 2)
                await hub.apply(
                    .fahrenheit(isPi ? pi : other, 100 + Double(index), name: isPi ? "Thermometer" : "Other"))
            }
            await hub.apply(.readingError(address: pi, detail: "not a number", raw: [0xff, 0x00]))
            #expect(await hub.lastSeq == 7)
            let all = try await hub.history(HistoryQuery())
            #expect(all.events.compactMap(\.seq) == [1, 2, 3, 4, 5, 6, 7])
            #expect(all.complete && !all.more)
            let resumed = try await hub.history(HistoryQuery(since: 4))
            #expect(resumed.events.compactMap(\.seq) == [5, 6, 7])
            guard case .readingError(let failure) = resumed.events.last else {
                Issue.record("no reading error")
                return
            }
            #expect(failure.rawHex == "ff00")
            let onlyPi = try await hub.history(HistoryQuery(selector: pi.description.lowercased()))
            #expect(onlyPi.events.compactMap(\.seq) == [1, 3, 5, 7])
            let byName = try await hub.history(HistoryQuery(selector: "thermometer", since: 6))
            #expect(byName.events.compactMap(\.seq) == [7])
        }
    }

    @Test("Sequence numbers continue after a restart, and history still has what came before")
    func numbersContinue() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try await withHistory(directory: directory) { hub in
            for index in 0..<3 { await hub.apply(.fahrenheit(pi, 90 + Double(index))) }
        }
        try await withHistory(directory: directory) { hub in
            #expect(await hub.lastSeq == 3)
            await hub.apply(.fahrenheit(pi, 99))
            let all = try await hub.history(HistoryQuery())
            #expect(all.events.compactMap(\.seq) == [1, 2, 3, 4])
            #expect(all.lastSeq == 4)
        }
    }

    @Test("History pages with limit and more, and by time")
    func paging() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        try await withHistory(directory: directory) { hub in
            for index in 0..<5 { await hub.apply(.fahrenheit(pi, 90 + Double(index))) }
            let first = try await hub.history(HistoryQuery(limit: 2))
            #expect(first.events.compactMap(\.seq) == [1, 2] && first.more)
            let last = try await hub.history(HistoryQuery(since: 4, limit: 2))
            #expect(last.events.compactMap(\.seq) == [5] && !last.more)
            let byTime = try await hub.history(HistoryQuery(from: Timestamp(millisecondsSince1970: 0), limit: 3))
            #expect(byTime.events.compactMap(\.seq) == [1, 2, 3] && byTime.more)
            let future = try await hub.history(
                HistoryQuery(from: Timestamp(millisecondsSince1970: Timestamp.now().millisecondsSince1970 + 3_600_000)))
            #expect(future.events.isEmpty)
        }
    }

    @Test("History by name: every device with the name, in order, page by page, by seq and by time")
    func historyOfAName() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let third: BluetoothAddress = "11:22:33:44:55:66"
        try await withHistory(directory: directory) { hub in
            for index in 0..<9 {
                let (address, name) = [(pi, "Thermometer"), (other, "thermometer"), (third, "Other")][index % 3]
                await hub.apply(.fahrenheit(address, 90 + Double(index), name: name))
            }
            let named: [UInt64] = [1, 2, 4, 5, 7, 8]
            for start in [
                HistoryQuery(selector: "THERMOMETER"),
                HistoryQuery(selector: "Thermometer", from: .init(millisecondsSince1970: 0)),
            ] {
                var query = start
                query.limit = 4
                var seqs: [UInt64] = []
                while true {
                    let page = try await hub.history(query)
                    seqs += page.events.compactMap(\.seq)
                    #expect(page.events.count <= 4 && page.complete)
                    guard page.more, let last = page.events.last else { break }
                    query.since = last.seq ?? 0
                    if query.isTimeRange { query.from = last.time }
                }
                #expect(seqs == named, "\(start)")
            }
            await #expect(
                throws: ErrorInfo(
                    .notFound,
                    "no device named \"Nobody\" has been seen since blectld started; give its address instead")
            ) {
                try await hub.history(HistoryQuery(selector: "Nobody"))
            }
            // An address is asked for as it is, seen or not.
            #expect(try await hub.history(HistoryQuery(address: "00:00:00:00:00:01")).events.isEmpty)
        }
    }

    @Test("Without a history store, history is unavailable")
    func noHistory() async {
        let hub = makeHub()
        await #expect(throws: ErrorInfo.self) { try await hub.history(HistoryQuery()) }
    }

    @Test("Readings are normalised: Celsius to 0.01, name from the table")
    func normalisedReading() async {
        let hub = makeHub()
        let log = EventLog()
        await hub.addListener { log.append($0) }
        await hub.apply(.connected(address: pi, name: "Thermometer"))
        await hub.apply(.fahrenheit(pi, 112.5, name: nil))
        guard case .reading(let reading) = log.all.last else {
            Issue.record("no reading")
            return
        }
        #expect(reading.address == pi && reading.name == "Thermometer")
        #expect(reading.celsius == 44.72 && reading.raw == "112.5 F" && reading.unit == .fahrenheit)
    }

    @Test("Listeners get events in order; repeated sightings are throttled")
    func listeners() async {
        let clock = ManualClock()
        let hub = makeHub(clock: clock)
        let log = EventLog()
        let registration = await hub.addListener { log.append($0) }
        #expect(registration.lastSeq == 0)
        await hub.apply(.adapterState(adapter: "hci0", state: .poweredOn))
        await hub.apply(.adapterState(adapter: "hci0", state: .poweredOn))  // unchanged: silent
        await hub.apply(.peripheralSeen(address: pi, name: "Thermometer", rssi: -60, isThermometer: true))
        await hub.apply(.peripheralSeen(address: pi, name: "Thermometer", rssi: -61, isThermometer: true))  // throttled
        clock.advance(by: 11)
        await hub.apply(.peripheralSeen(address: pi, name: "Thermometer", rssi: -62, isThermometer: true))
        await hub.apply(.connected(address: pi, name: nil))
        await hub.apply(.fahrenheit(pi, 100))
        await hub.apply(.disconnected(address: pi, reason: "connection timeout"))
        await hub.apply(.disconnected(address: pi, reason: "again"))  // not connected: silent
        await hub.apply(.peripheralLost(address: pi))
        #expect(
            log.all.map(\.type) == [
                .adapterState, .peripheralSeen, .peripheralSeen, .connected, .reading, .disconnected, .peripheralLost,
            ])
        await hub.removeListener(registration.id)
        await hub.apply(.fahrenheit(pi, 101))
        #expect(log.all.count == 7)
    }

    @Test("A device heard broadcasting is a sensor from its first reading, named by its family")
    func broadcastingSensor() async {
        let family = SensorFamily(
            id: "ruuvi", name: "RuuviTag (data format 5)", manufacturer: "Ruuvi", models: ["RuuviTag"],
            quantities: [.temperature])
        let hub = Hub(sensors: SensorCatalog([family]))
        await hub.apply(.peripheralSeen(address: other, name: "Ruuvi 0001", rssi: -70, isThermometer: false))
        #expect(await hub.peripherals().first?.thermometer == false)
        await hub.apply(.reading(other, name: nil, .celsius(21, raw: "05", profile: "ruuvi")))
        let info = await hub.peripherals().first
        #expect(info?.thermometer == true && info?.profile == "ruuvi")
        #expect(
            info?.family == "RuuviTag (data format 5)" && info?.model == "RuuviTag" && info?.manufacturer == "Ruuvi")
        // A profile no catalog lists is described by its id.
        await hub.apply(.reading(pi, name: nil, .celsius(21, raw: "x", profile: "newer")))
        #expect(await hub.peripherals().first { $0.address == pi }?.model == "newer")
    }

    @Test("A device with several probes: read reports each probe's newest reading, by probe")
    func probes() async throws {
        let hub = makeHub()
        func probe(_ number: UInt8?, _ celsius: Double) -> Measurement {
            Measurement(
                profile: "govee-meat", quantities: Quantities([.temperature: celsius]), raw: "00", probe: number)
        }
        // One advertisement's two probes, then probe 1 again, then a third probe.
        for (number, celsius) in [(2, 60.5), (1, 21.0), (1, 22.5), (3, 70.25)] as [(UInt8, Double)] {
            await hub.apply(.reading(other, name: "H5184", probe(number, celsius)))
        }
        let reports = try await hub.read(matching: nil, timeout: .zero)
        #expect(reports.map(\.reading.measurement.probe) == [1, 2, 3])
        #expect(reports.map(\.reading.celsius) == [22.5, 60.5, 70.25])
        #expect(reports.allSatisfy { $0.fresh })
        // A device without probes keeps one current value.
        await hub.apply(.reading(pi, name: nil, probe(nil, 40)))
        await hub.apply(.reading(pi, name: nil, probe(nil, 41)))
        let both = try await hub.read(matching: nil, timeout: .zero)
        #expect(both.filter { $0.address == pi }.map(\.reading.celsius) == [41])
        #expect(both.count == 4)
    }

    /// A hub whose catalog lists pvvx with two models, and the log of its events.
    static func pvvxHub() async -> (Hub, EventLog) {
        let family = SensorFamily(
            id: "pvvx", name: "pvvx custom firmware", manufacturer: "Xiaomi", models: ["LYWSD03MMC", "MHO-C401"],
            quantities: [.temperature])
        let hub = Hub(sensors: SensorCatalog([family]))
        let log = EventLog()
        await hub.addListener { log.append($0) }
        return (hub, log)
    }

    @Test("Readings and reading errors name the model and manufacturer the catalog gives their profile")
    func modelAndManufacturer() async {
        let (hub, log) = await Self.pvvxHub()
        // No reading yet: the error cannot say which profile the device speaks.
        await hub.apply(.readingError(address: other, detail: "bad", raw: [0x01]))
        await hub.apply(.reading(other, name: nil, .celsius(21, raw: "05", profile: "pvvx")))
        await hub.apply(.readingError(address: other, detail: "bad", raw: [0x02]))
        // A profile the catalog does not list: neither is said.
        await hub.apply(.reading(pi, name: nil, .celsius(21, raw: "x", profile: "newer")))
        let events = log.all
        guard events.count == 4, case .readingError(let early) = events[0], case .reading(let reading) = events[1],
            case .readingError(let late) = events[2], case .reading(let unlisted) = events[3]
        else {
            Issue.record("unexpected events \(events)")
            return
        }
        #expect(early.model == nil && early.manufacturer == nil)
        #expect(reading.model == "LYWSD03MMC / MHO-C401" && reading.manufacturer == "Xiaomi")
        #expect(late.model == "LYWSD03MMC / MHO-C401" && late.manufacturer == "Xiaomi")
        #expect(unlisted.model == nil && unlisted.manufacturer == nil)
    }

    @Test("A reading whose decoder told the model apart names that model; its errors and the scan too")
    func specificModel() async throws {
        let (hub, log) = await Self.pvvxHub()
        var measurement = Measurement.celsius(21, raw: "05", profile: "pvvx")
        measurement.modelIndex = 1
        await hub.apply(.reading(other, name: nil, measurement))
        await hub.apply(.readingError(address: other, detail: "bad", raw: [0x02]))
        await hub.apply(.reading(pi, name: nil, .celsius(22, raw: "06", profile: "pvvx")))
        let events = log.all
        guard events.count == 3, case .reading(let specific) = events[0], case .readingError(let error) = events[1],
            case .reading(let general) = events[2]
        else {
            Issue.record("unexpected events \(events)")
            return
        }
        #expect(specific.model == "MHO-C401" && error.model == "MHO-C401")
        #expect(general.model == "LYWSD03MMC / MHO-C401")
        let peripherals = await hub.peripherals()
        #expect(peripherals.first { $0.address == other }?.model == "MHO-C401")
        #expect(peripherals.first { $0.address == pi }?.model == "LYWSD03MMC / MHO-C401")
    }

    @Test("Status shows the adapter and connected thermometers with their latest reading")
    func status() async {
        let hub = makeHub()
        await hub.apply(.adapterState(adapter: "hci0", state: .poweredOn))
        await hub.apply(.connected(address: pi, name: "Thermometer"))
        await hub.apply(.fahrenheit(pi, 112.5))
        let status = await hub.status()
        #expect(status.adapter == "hci0" && status.state == .poweredOn && status.lastSeq == 1)
        #expect(status.connected.map(\.address) == [pi])
        #expect(status.connected.first?.lastReading?.raw == "112.5 F")
    }

    @Test("read returns a fresh value when the central can read")
    func freshRead() async throws {
        let central = FakeCentral()
        let hub = makeHub(central: central)
        await central.script(read: .success(.celsius(44.7, raw: "44.7 C")), hub: hub)
        await hub.apply(.connected(address: pi, name: "Thermometer"))
        let reports = try await hub.read(matching: nil, timeout: .seconds(1))
        #expect(reports.count == 1)
        #expect(reports.first?.fresh == true && reports.first?.seq == 1 && reports.first?.celsius == 44.7)
        #expect(await central.reads == [pi])
    }

    @Test("read falls back to the latest reading with its age when a fresh read fails")
    func staleRead() async throws {
        let clock = ManualClock()
        let central = FakeCentral()
        let hub = makeHub(central: central, clock: clock)
        await hub.apply(.connected(address: pi, name: "Thermometer"))
        await hub.apply(.fahrenheit(pi, 112.5))
        clock.advance(by: 42)
        let reports = try await hub.read(matching: "THERMOMETER", timeout: .zero)
        #expect(reports.first?.fresh == false)
        #expect(reports.first?.ageSeconds == 42)
        #expect(reports.first?.raw == "112.5 F")
    }

    @Test("read waits for a thermometer to connect and report")
    func readWaits() async throws {
        let hub = makeHub()
        let pending = Task { try await hub.read(matching: pi.description, timeout: .seconds(20)) }
        await hub.apply(.connected(address: pi, name: "Thermometer"))
        await hub.apply(.fahrenheit(pi, 98.6))
        let reports = try await pending.value
        #expect(reports.map(\.raw) == ["98.6 F"])
        #expect(reports.first?.fresh == true)
    }

    @Test("read of a sensor that sends only values that cannot be read says why at the first one, not at the timeout")
    func readOfAnUnreadableSensor() async throws {
        let hub = makeHub()
        await hub.apply(.peripheralSeen(address: other, name: "Sensor", rssi: -60, isThermometer: false))
        let started = ContinuousClock.now
        let pending = Task { try await hub.read(matching: "sensor", timeout: Duration.seconds(30).scaled) }
        try await Task.sleep(for: .milliseconds(50))
        await hub.apply(.readingError(address: other, detail: "the key does not authenticate", raw: [0x01]))
        do {
            _ = try await pending.value
            Issue.record("a reading from a sensor that sent none")
        } catch let error as ErrorInfo {
            #expect(error.code == .unavailable)
            #expect(error.message.contains("\(other) sends values that cannot be read"), "\(error.message)")
            #expect(error.message.contains("the key does not authenticate"), "\(error.message)")
        }
        // Well before the timeout (a sanitizer's load stretches both).
        #expect(ContinuousClock.now - started < Duration.seconds(20).scaled)
        // A reading since: read gives it.
        await hub.apply(.reading(other, name: nil, .celsius(21, raw: "05", profile: "ruuvi")))
        let reports = try await hub.read(matching: "sensor", timeout: .zero)
        #expect(reports.map(\.address) == [other])
    }

    @Test("read fails with timeout or not_found when nothing can answer")
    func readFails() async {
        let hub = makeHub()
        await #expect(throws: ErrorInfo(.timeout, "no thermometer connected within 0 s")) {
            try await hub.read(matching: nil, timeout: .zero)
        }
        await #expect(throws: ErrorInfo(.notFound, "no thermometer matches \"Kitchen\"")) {
            try await hub.read(matching: "Kitchen", timeout: .milliseconds(50))
        }
    }

    @Test("scan goes through the central and returns what it saw")
    func scan() async throws {
        let central = FakeCentral()
        let hub = makeHub(central: central)
        await central.script(
            sightings: [
                .peripheralSeen(address: pi, name: "Thermometer", rssi: -50, isThermometer: true),
                .peripheralSeen(address: other, name: nil, rssi: -80, isThermometer: false),
            ], hub: hub)
        let found = try await hub.scan(timeout: .seconds(3))
        #expect(found.map(\.address) == [pi, other])
        #expect(found.map(\.thermometer) == [true, false])
        #expect(await central.scans == [.seconds(3)])
        await hub.apply(.adapterState(adapter: "hci0", state: .poweredOff))
        await #expect(throws: ErrorInfo.self) { try await hub.scan(timeout: nil) }
        await #expect(throws: ErrorInfo(.unavailable, "the daemon has no Bluetooth central")) {
            try await makeHub().scan(timeout: nil)
        }
    }

    @Test("The peripheral table is bounded")
    func boundedTable() async {
        var limits = Hub.Limits()
        limits.peripherals = 4
        let hub = Hub(limits: limits)
        for index in 0..<10 {
            await hub.apply(
                .peripheralSeen(
                    address: BluetoothAddress("00:00:00:00:00:0\(index)")!, name: nil, rssi: -70, isThermometer: false))
        }
        #expect(await hub.peripherals().count == 4)
    }

    @Test("A full table forgets the peripheral unseen longest, never a connected one")
    func tableEviction() {
        var table = PeripheralTable(capacity: 3)
        let now = Timestamp(millisecondsSince1970: 0)
        let seen = { (table: inout PeripheralTable, address: BluetoothAddress) in
            _ = table.see(address: address, name: nil, rssi: -60, isThermometer: false, at: now, refresh: .seconds(10))
        }
        table.connect("AA:00:00:00:00:01", name: "Thermometer", at: now)
        seen(&table, "BB:00:00:00:00:01")
        seen(&table, "BB:00:00:00:00:02")
        seen(&table, "BB:00:00:00:00:01")  // seen again: 02 is the one unseen longest
        seen(&table, "BB:00:00:00:00:03")
        #expect(table["BB:00:00:00:00:02"] == nil)
        for index in 4..<50 { seen(&table, BluetoothAddress(value: 0xBB00_0000_0000 + UInt64(index))) }
        #expect(table["AA:00:00:00:00:01"]?.connectedSince != nil)
        #expect(table.records.count == 3)
    }
}

@Suite("Aliases")
struct AliasTests {
    @Test("an aliased device is shown under its alias and found by it")
    func alias() async throws {
        var limits = Hub.Limits()
        limits.aliases = [BluetoothAddress("DC:A6:32:01:02:03"): "Kitchen"]
        let hub = Hub(limits: limits)
        let log = EventLog()
        await hub.addListener { log.append($0) }
        await hub.apply(.connected(address: "DC:A6:32:01:02:03", name: "Thermometer"))
        await hub.apply(.fahrenheit("DC:A6:32:01:02:03", 100, name: "Thermometer"))
        let names = log.all.compactMap { event -> String? in
            switch event {
            case .connected(let change): change.name
            case .reading(let reading): reading.name
            default: nil
            }
        }
        #expect(names == ["Kitchen", "Kitchen"])
        let reports = try await hub.read(matching: "kitchen", timeout: .zero)
        #expect(reports.map(\.address) == ["DC:A6:32:01:02:03"])
        #expect(await hub.coreStatus().connected.first?.name == "Kitchen")
    }
}
