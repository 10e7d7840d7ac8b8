@testable import BlueZClient
@testable import Central
import DBusCore
import SensorModel
import Testing

@Suite("Adapter ownership: the adapter that hears a device best owns it, without flapping (issue 36)")
struct AdapterOwnershipTests {
    let hci0 = BlueZPath(ObjectPath("/org/bluez/hci0"))
    let hci1 = BlueZPath(ObjectPath("/org/bluez/hci1"))
    let device = BluetoothAddress("DC:A6:32:00:00:01")
    let start = ContinuousClock.now

    func table() -> AdapterOwnership {
        var ownership = AdapterOwnership()
        ownership.follow([hci0, hci1], at: start)
        return ownership
    }

    /// `seconds` after the start.
    func at(_ seconds: Double) -> ContinuousClock.Instant { start + .seconds(seconds) }

    @Test("the adapter that hears the device better takes it, once past the dead band")
    func betterAdapterWins() {
        var ownership = table()
        ownership.heard(device, on: hci0, rssi: -75, at: at(0))
        ownership.heard(device, on: hci1, rssi: -72, at: at(0.1))
        #expect(ownership.owner(of: device) == hci0, "3 dB better is within the dead band")
        for step in 1...20 {
            ownership.heard(device, on: hci0, rssi: -75, at: at(Double(step)))
            ownership.heard(device, on: hci1, rssi: -55, at: at(Double(step) + 0.1))
        }
        #expect(ownership.owner(of: device) == hci1)
        #expect(ownership.ownedCount(by: hci1) == 1)
        #expect(ownership.ownedCount(by: hci0) == 0)
        #expect(ownership.ranking(of: device, among: [hci0, hci1], at: at(21)) == [hci1, hci0])
    }

    @Test("an RSSI swapped between the adapters at every hearing switches the owner at most once")
    func alternatingRSSI() {
        var ownership = table()
        var owners: [BlueZPath?] = []
        for step in 0..<1000 {
            let (first, second) = step.isMultiple(of: 2) ? (-50, -80) : (-80, -50)
            ownership.heard(device, on: hci0, rssi: first, at: at(Double(step)))
            owners.append(ownership.owner(of: device))
            ownership.heard(device, on: hci1, rssi: second, at: at(Double(step) + 0.5))
            owners.append(ownership.owner(of: device))
        }
        let switches = zip(owners, owners.dropFirst()).count { $0 != $1 }
        #expect(switches <= 1, "\(switches) switches")
        // Wider still: -50/-90, the mock's flap.
        var wide = table()
        var wideOwners: [BlueZPath?] = []
        for step in 0..<1000 {
            let (first, second) = step.isMultiple(of: 2) ? (-90, -50) : (-50, -90)
            wide.heard(device, on: hci0, rssi: first, at: at(Double(step)))
            wide.heard(device, on: hci1, rssi: second, at: at(Double(step) + 0.5))
            wideOwners.append(wide.owner(of: device))
        }
        #expect(zip(wideOwners, wideOwners.dropFirst()).count { $0 != $1 } <= 1)
    }

    @Test("an owner that has not heard the device for a minute hands it over, even to a weaker adapter")
    func staleOwnerHandsOver() {
        var ownership = table()
        ownership.heard(device, on: hci0, rssi: -50, at: at(0))
        ownership.heard(device, on: hci1, rssi: -80, at: at(1))
        #expect(ownership.owner(of: device) == hci0)
        ownership.heard(device, on: hci1, rssi: -80, at: at(59))
        #expect(ownership.owner(of: device) == hci0, "not stale yet")
        ownership.heard(device, on: hci1, rssi: -80, at: at(61))
        #expect(ownership.owner(of: device) == hci1)
        #expect(ownership.ranking(of: device, among: [hci0, hci1], at: at(61)) == [hci1, hci0])
    }

    @Test(
        "a link held longer than the stale time keeps its owner: the first adapter to hear the device after does not take it"
    )
    func aLongLinkKeepsItsOwner() {
        var ownership = table()
        ownership.heard(device, on: hci0, rssi: -50, at: at(0))
        ownership.heard(device, on: hci1, rssi: -80, at: at(0))
        // Connected through hci0 for 90 s: no advertisements meanwhile.
        ownership.linkEnded(device, on: hci0, at: at(90))
        ownership.heard(device, on: hci1, rssi: -80, at: at(91))
        #expect(ownership.owner(of: device) == hci0)
        #expect(ownership.ranking(of: device, among: [hci1, hci0], at: at(91)) == [hci0, hci1])
    }

    @Test("an owner gone or powered off hands its devices to the next best; one removing its device object too")
    func ownerGone() {
        var ownership = table()
        ownership.heard(device, on: hci0, rssi: -50, at: at(0))
        ownership.heard(device, on: hci1, rssi: -80, at: at(0))
        ownership.follow([hci1], at: at(1))
        #expect(ownership.owner(of: device) == hci1)
        ownership.heard(device, on: hci0, rssi: -40, at: at(2))
        #expect(ownership.owner(of: device) == hci1, "hearings on an adapter not followed are ignored")
        ownership.follow([hci0, hci1], at: at(3))
        ownership.heard(device, on: hci0, rssi: -40, at: at(4))
        #expect(ownership.owner(of: device) == hci0)
        ownership.lost(device, on: hci0, at: at(5))
        #expect(ownership.owner(of: device) == hci1)
        ownership.lost(device, on: hci1, at: at(6))
        #expect(ownership.devices.isEmpty)
    }

    @Test("a device heard by one adapter of two settles before it is connected, unless both hear it")
    func settling() {
        var ownership = table()
        ownership.heard(device, on: hci0, rssi: -80, at: at(0))
        #expect(!ownership.isSettled(device, adapterCount: 2, at: at(1)))
        #expect(ownership.isSettled(device, adapterCount: 2, at: at(2)))
        ownership.heard(device, on: hci1, rssi: -50, at: at(1))
        #expect(ownership.isSettled(device, adapterCount: 2, at: at(1)))
        #expect(ownership.owner(of: device) == hci1, "a first hearing far better takes the device at once")
    }

    @Test("the constants: a dead band of 6 dB, a minute to stale, a tenth of the way per hearing")
    func constants() {
        #expect(AdapterOwnership.switchMargin == 6)
        #expect(AdapterOwnership.staleAfter == .seconds(60))
        #expect(AdapterOwnership.smoothing == 0.1)
        #expect(AdapterOwnership.settleTime == .seconds(2))
    }
}
