@testable import Central
import SensorModel
import Testing

@Suite("Connection slots")
struct ConnectionSlotsTests {
    static let addresses = (1...8).map { BluetoothAddress("DC:A6:32:00:00:0\($0)")! }

    @Test("one attempt at a time, in the order asked; links up to the limit, then left out")
    func limits() {
        let a = Self.addresses
        var slots = ConnectionSlots(maxConnecting: 1, maxConnections: 2)
        #expect(slots.request(a[0]).decision == .go)
        #expect(slots.request(a[1]).decision == .queued)
        #expect(slots.request(a[2]).decision == .queued)
        #expect(slots.established(a[0]) == [a[1]])
        // Two links held (one up, one attempt): the third is left out.
        #expect(slots.waitingForLink == [a[2]])
        #expect(slots.established(a[1]) == [])
        #expect(slots.release(a[0]) == [a[2]])
    }

    @Test("a thermometer known to work goes first and keeps its link reserved")
    func knownFirst() {
        let a = Self.addresses
        var slots = ConnectionSlots(maxConnecting: 1, maxConnections: 2)
        #expect(slots.request(a[0]).decision == .go)
        _ = slots.established(a[0])
        slots.markKnown(a[0])
        #expect(slots.request(a[1]).decision == .go)
        _ = slots.established(a[1])
        // a[0]'s link drops: its place is kept for it, not given to a[2] that waits.
        #expect(slots.request(a[2]).decision == .leftOut)
        #expect(slots.release(a[0]) == [])
        #expect(slots.waitingForLink == [a[2]])
        let known = slots.request(a[0])
        #expect(known.decision == .go && known.alsoGranted.isEmpty)
        // Attempts: a waiting known thermometer goes before those that asked earlier.
        var busy = ConnectionSlots(maxConnecting: 1, maxConnections: 5)
        busy.markKnown(a[5])
        #expect(busy.request(a[3]).decision == .go)
        #expect(busy.request(a[4]).decision == .queued)
        #expect(busy.request(a[5]).decision == .queued)
        #expect(busy.release(a[3]) == [a[5]])
    }
}
