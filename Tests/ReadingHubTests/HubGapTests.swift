import BlectlProtocol
import HistoryStore
import SensorModel
import TestSupport
import Testing
import UnixSupport

@testable import ReadingHub

@Suite("Hub: gaps in the history")
struct HubGapTests {
    let pi: BluetoothAddress = "DC:A6:32:01:02:03"
    let other: BluetoothAddress = "AA:BB:CC:DD:EE:FF"

    /// A hub on a manual clock with a store in a temporary directory.
    private func withHub(_ body: (Hub, ManualClock, HistoryStore) async throws -> Void) async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        let clock = ManualClock()
        let store = try HistoryStore.open(path: directory.path, log: Log(level: .warning))
        let hub = Hub(lastSeq: store.lastSeq, now: { clock.now })
        await hub.attach(history: store)
        do {
            try await body(hub, clock, store)
        } catch {
            await store.close()
            throw error
        }
        await store.close()
    }

    private func gaps(_ hub: Hub, address: BluetoothAddress? = nil) async throws -> [HistoryGap] {
        try await hub.history(
            HistoryQuery(address: address, from: Timestamp(millisecondsSince1970: 0), until: nil)
        ).gaps
    }

    @Test("the adapter down for a minute or more is a gap of every device; a shorter outage is not")
    func adapterDown() async throws {
        try await withHub { hub, clock, _ in
            await hub.apply(.adapterState(adapter: "hci0", .poweredOn, reason: nil))
            await hub.apply(.fahrenheit(pi, 100, name: "Thermometer"))
            clock.advance(by: 5)
            let down = clock.now
            await hub.apply(.adapterState(adapter: "hci0", .poweredOff, reason: "rfkill"))
            clock.advance(by: 30)
            await hub.apply(.adapterState(adapter: "hci0", .resetting, reason: nil))
            clock.advance(by: 60)
            await hub.apply(.adapterState(adapter: "hci0", .poweredOn, reason: nil))
            let up = clock.now
            await hub.apply(.fahrenheit(pi, 101, name: "Thermometer"))
            clock.advance(by: 10)
            await hub.apply(.adapterState(adapter: "hci0", .poweredOff, reason: nil))
            clock.advance(by: 59)
            await hub.apply(.adapterState(adapter: "hci0", .poweredOn, reason: nil))
            let expected = [HistoryGap(address: nil, from: down, until: up, reason: .adapterDown)]
            let all = try await gaps(hub)
            let ofPi = try await gaps(hub, address: pi)
            #expect(all == expected)
            #expect(ofPi == expected, "a gap of every device is one of each")
        }
    }

    @Test("a device silent longer than gap_after is a gap of that device; one that came back with the adapter is not")
    func notHeard() async throws {
        try await withHub { hub, clock, _ in
            await hub.apply(.adapterState(adapter: "hci0", .poweredOn, reason: nil))
            await hub.apply(.fahrenheit(pi, 100, name: "Thermometer"))
            await hub.apply(.fahrenheit(other, 100, name: "Other"))
            let last = clock.now
            clock.advance(by: 601)
            await hub.apply(.fahrenheit(pi, 101, name: "Thermometer"))
            let back = clock.now
            clock.advance(by: 5)
            await hub.apply(.fahrenheit(pi, 101, name: "Thermometer"))
            let all = try await gaps(hub)
            let ofOther = try await gaps(hub, address: other)
            #expect(all == [HistoryGap(address: pi, from: last, until: back, reason: .notHeard)])
            #expect(ofOther.isEmpty)
            // Silent across an adapter outage: the outage says why.
            await hub.apply(.adapterState(adapter: "hci0", .poweredOff, reason: nil))
            clock.advance(by: 700)
            await hub.apply(.adapterState(adapter: "hci0", .poweredOn, reason: nil))
            await hub.apply(.fahrenheit(other, 100, name: "Other"))
            let afterOutage = try await gaps(hub, address: other)
            #expect(afterOutage.map(\.reason) == [.adapterDown])
        }
    }
}
