@testable import BlueZClient
@testable import Central
import DBusCore
import SensorModel
import Testing

@Suite("Connection slots")
struct ConnectionSlotsTests {
    static let addresses = (1...8).map { BluetoothAddress("DC:A6:32:00:00:0\($0)")! }
    static let hci0 = BlueZPath(ObjectPath("/org/bluez/hci0"))
    static let hci1 = BlueZPath(ObjectPath("/org/bluez/hci1"))

    @Test("one attempt at a time, in the order asked; links up to the limit, then left out")
    func limits() {
        let a = Self.addresses
        var slots = ConnectionSlots(maxConnecting: 1, maxConnections: 2)
        #expect(slots.request(a[0], on: [Self.hci0]).decision == .go)
        #expect(slots.request(a[1], on: [Self.hci0]).decision == .queued)
        #expect(slots.request(a[2], on: [Self.hci0]).decision == .queued)
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
        #expect(slots.request(a[0], on: [Self.hci0]).decision == .go)
        _ = slots.established(a[0])
        slots.markKnown(a[0])
        #expect(slots.request(a[1], on: [Self.hci0]).decision == .go)
        _ = slots.established(a[1])
        // a[0]'s link drops: its place is kept for it, not given to a[2] that waits.
        #expect(slots.request(a[2], on: [Self.hci0]).decision == .leftOut)
        #expect(slots.release(a[0]) == [])
        #expect(slots.waitingForLink == [a[2]])
        let known = slots.request(a[0], on: [Self.hci0])
        #expect(known.decision == .go && known.alsoGranted.isEmpty)
        // Attempts: a waiting known thermometer goes before those that asked earlier.
        var busy = ConnectionSlots(maxConnecting: 1, maxConnections: 5)
        busy.markKnown(a[5])
        #expect(busy.request(a[3], on: [Self.hci0]).decision == .go)
        #expect(busy.request(a[4], on: [Self.hci0]).decision == .queued)
        #expect(busy.request(a[5], on: [Self.hci0]).decision == .queued)
        #expect(busy.release(a[3]) == [a[5]])
    }

    @Test("max_connections is per adapter: a full owner sends the next device to the next adapter it names")
    func perAdapter() {
        let a = Self.addresses
        let (hci0, hci1) = (Self.hci0, Self.hci1)
        var slots = ConnectionSlots(maxConnecting: 1, maxConnections: 1)
        #expect(slots.request(a[0], on: [hci0, hci1]).decision == .go)
        #expect(slots.adapter(of: a[0]) == hci0)
        // One attempt at a time, over all adapters.
        #expect(slots.request(a[1], on: [hci0, hci1]).decision == .queued)
        #expect(slots.established(a[0]) == [a[1]])
        #expect(slots.adapter(of: a[1]) == hci1)
        _ = slots.established(a[1])
        #expect(slots.held(on: hci0) == 1 && slots.held(on: hci1) == 1)
        // Both adapters full: a third is left out, and goes when either frees a link.
        #expect(slots.request(a[2], on: [hci1, hci0]).decision == .leftOut)
        #expect(slots.release(a[0]) == [a[2]])
        #expect(slots.adapter(of: a[2]) == hci0)
        // Heard by hci1 only, a device waits for hci1's link, never taking hci0's.
        _ = slots.established(a[2])
        _ = slots.release(a[2])
        #expect(slots.request(a[3], on: [hci1]).decision == .leftOut)
        #expect(slots.waitingForLink == [a[3]])
        #expect(slots.release(a[1]) == [a[3]])
        #expect(slots.adapter(of: a[3]) == hci1)
    }

    @Test("a known thermometer keeps its link reserved on the adapter of its last link only")
    func reservedPerAdapter() {
        let a = Self.addresses
        let (hci0, hci1) = (Self.hci0, Self.hci1)
        var slots = ConnectionSlots(maxConnecting: 1, maxConnections: 1)
        #expect(slots.request(a[0], on: [hci1, hci0]).decision == .go)
        _ = slots.established(a[0])
        slots.markKnown(a[0])
        _ = slots.release(a[0])
        // hci1's link is kept for a[0]; hci0's is free for another.
        #expect(slots.request(a[1], on: [hci1]).decision == .leftOut)
        #expect(slots.request(a[2], on: [hci1, hci0]).decision == .go)
        #expect(slots.adapter(of: a[2]) == hci0)
        let known = slots.request(a[0], on: [hci0, hci1])
        #expect(known.decision == .queued)
        #expect(slots.established(a[2]) == [a[0]])
        #expect(slots.adapter(of: a[0]) == hci1)
    }
}
