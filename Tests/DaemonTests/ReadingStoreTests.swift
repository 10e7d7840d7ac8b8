import BlectlProtocol
@testable import Daemon
import Testing
import SensorModel

@Suite("ReadingStore")
struct ReadingStoreTests {
    let pi = "DC:A6:32:01:02:03"
    let other = "AA:BB:CC:DD:EE:FF"
    let start = Timestamp(millisecondsSince1970: 1_796_000_000_000)

    private func reading(
        _ seq: UInt64, _ address: String, name: String? = "Thermometer", celsius: Double = 44.72,
        raw: String = "112.5 F", unit: TemperatureUnit = .fahrenheit
    ) -> Event {
        .reading(
            Reading(
                seq: seq, time: Timestamp(millisecondsSince1970: start.millisecondsSince1970 + Int64(seq) * 100),
                address: address, name: name, celsius: celsius, raw: raw, unit: unit))
    }

    private func failure(_ seq: UInt64, _ address: String, name: String? = nil) -> Event {
        .readingError(
            ReadingFailure(
                seq: seq, time: Timestamp(millisecondsSince1970: start.millisecondsSince1970 + Int64(seq) * 100),
                address: address, name: name, error: "not a number: \"\u{fffd}\"", rawHex: "ff00"))
    }

    private func seqs(_ events: [Event]) -> [UInt64] {
        events.compactMap(\.seq)
    }

    @Test("Readings and reading errors come back as the same events, merged by seq")
    func roundTrip() {
        var store = ReadingStore(perDevice: 10, maxDevices: 10)
        let recorded = [
            reading(1, pi),
            reading(2, other, name: nil, celsius: -3.5, raw: "-3.5 C", unit: .celsius),
            failure(3, pi, name: "Thermometer"),
            // Longer than a small string: stored by reference, still the same value.
            reading(4, other, name: "A thermometer with a long name, ünïcode", raw: "0a1b2c3d4e5f60718293a4b5"),
            failure(5, other),
            reading(6, pi, celsius: .infinity, raw: "inf F"),
        ]
        for event in recorded { store.record(event) }
        let all = store.history(address: nil, since: 0, limit: 100)
        #expect(all.events == recorded)
        #expect(all.complete && !all.more)
        #expect(store.history(address: pi, since: 0, limit: 100).events == [recorded[0], recorded[2], recorded[5]])
        #expect(store.history(address: other, since: 2, limit: 100).events == [recorded[3], recorded[4]])
        #expect(store.history(address: "00:00:00:00:00:00", since: 0, limit: 100).events.isEmpty)
    }

    @Test("Events without seq or address are not stored")
    func ignored() {
        var store = ReadingStore(perDevice: 10, maxDevices: 10)
        store.record(.connected(PeripheralChange(time: start, address: pi, name: "Thermometer")))
        store.record(.adapterState(AdapterChange(time: start, adapter: "hci0", state: .poweredOn)))
        #expect(store.history(address: nil, since: 0, limit: 100).events.isEmpty)
        #expect(store.name(of: pi) == nil && store.latestReading(pi) == nil)
    }

    @Test("Pages: at most limit events, oldest first, and whether more remain")
    func paging() {
        var store = ReadingStore(perDevice: 10, maxDevices: 10)
        for seq in UInt64(1)...6 { store.record(reading(seq, seq.isMultiple(of: 2) ? pi : other)) }
        let first = store.history(address: nil, since: 0, limit: 4)
        #expect(seqs(first.events) == [1, 2, 3, 4] && first.more && first.complete)
        let rest = store.history(address: nil, since: 4, limit: 4)
        #expect(seqs(rest.events) == [5, 6] && !rest.more)
    }

    @Test("A full device evicts its oldest entries; a resume before them is incomplete")
    func eviction() {
        var store = ReadingStore(perDevice: 3, maxDevices: 10)
        for seq in UInt64(1)...8 { store.record(seq == 7 ? failure(seq, pi) : reading(seq, pi)) }
        store.record(reading(9, other))
        let fromStart = store.history(address: pi, since: 0, limit: 100)
        #expect(fromStart.events == [reading(6, pi), failure(7, pi), reading(8, pi)])
        #expect(!fromStart.complete)
        #expect(store.history(address: pi, since: 5, limit: 100).complete)
        #expect(!store.history(address: nil, since: 4, limit: 100).complete)
        // The other device lost nothing.
        #expect(store.history(address: other, since: 0, limit: 100).complete)
    }

    @Test("Beyond maxDevices the least recently heard device is forgotten, and history says so")
    func forgetting() {
        var store = ReadingStore(perDevice: 3, maxDevices: 2)
        store.record(reading(1, pi))
        store.record(reading(2, other))
        store.record(reading(3, pi))
        store.record(reading(4, "11:22:33:44:55:66"))
        #expect(store.latestReading(other) == nil)
        let all = store.history(address: nil, since: 0, limit: 100)
        #expect(seqs(all.events) == [1, 3, 4] && !all.complete)
        #expect(store.history(address: nil, since: 2, limit: 100).complete)
    }

    @Test("The latest reading survives eviction and reading errors; names come from readings")
    func latestAndNames() {
        var store = ReadingStore(perDevice: 2, maxDevices: 10)
        store.record(reading(1, pi, name: "Old name"))
        store.record(reading(2, pi, name: "Thermometer"))
        store.record(reading(3, pi, name: nil))
        store.record(failure(4, pi, name: "Error name"))
        store.record(failure(5, pi))
        #expect(store.name(of: pi) == "Thermometer")
        guard case .reading(let expected) = reading(3, pi, name: nil) else { return }
        #expect(store.latestReading(pi) == expected)
        store.record(reading(6, other, name: "Kitchen"))
        let kitchen = store.latestReadings { _, name in name == "Kitchen" }
        #expect(kitchen.map(\.seq) == [6] && kitchen.first?.address == other)
        #expect(store.latestReadings { _, _ in true }.map(\.address) == [other, pi])
    }

    @Test("A stored entry is 32 bytes (the protocol's Event is larger, plus its address)")
    func entrySize() {
        #expect(MemoryLayout<HistoryEntry>.stride == 32)
    }

    @Test(
        "Everyday readings fit an entry; other values are boxed and still come back exactly",
        arguments: [
            (44.72, "112.5 F", true), (-3.5, "-3.5 C", true), (0, "0.0 C", true), (-0.0, "-0.0 C", false),
            (0.1 + 0.2, "0.3 C", false), (44.7, "1000.0 F", false), (44.7, "44.7 °C", false),
            (44.7, "44\u{0}7 C", false), (1e12, "1e12 C", false),
        ])
    func inlineOrBoxed(celsius: Double, raw: String, inline: Bool) {
        var names = HistoryNames()
        guard case .reading(let reading) = reading(7, pi, celsius: celsius, raw: raw) else { return }
        let entry = HistoryEntry(reading, names: &names)
        if case .text = entry.payload { #expect(inline) } else { #expect(!inline) }
        let back = entry.reading(address: pi, names: names)
        #expect(back?.raw == raw && back?.name == "Thermometer" && back?.seq == 7 && back?.time == reading.time)
        #expect(back?.celsius?.bitPattern == celsius.bitPattern)
    }

    @Test("Names beyond the 255 an entry can index are kept in the entry's box")
    func manyNames() {
        var store = ReadingStore(perDevice: 400, maxDevices: 10)
        let recorded = (UInt64(1)...300).map { reading($0, pi, name: "Thermometer \($0)") }
        for event in recorded { store.record(event) }
        #expect(store.history(address: pi, since: 0, limit: 400).events == recorded)
    }

    @Test("BoundedBuffer wraps around: order, evictions, search and suffixes at every fill", arguments: 1...5)
    func ring(capacity: Int) {
        var buffer = BoundedBuffer<Int>(capacity: capacity)
        var expected: [Int] = []
        for value in 1...(3 * capacity + 2) {
            let evicted = buffer.append(value)
            expected.append(value)
            #expect(evicted == (expected.count > capacity ? expected.removeFirst() : nil))
            #expect((0..<buffer.count).map { buffer[$0] } == expected && buffer.last == value)
            for cut in 0...value {
                #expect(buffer.partitionPoint { $0 <= cut } == expected.count { $0 <= cut })
            }
            for offset in 0...buffer.count {
                #expect(buffer.suffix(from: offset, limit: 2) == Array(expected.dropFirst(offset).prefix(2)))
            }
        }
    }
}
