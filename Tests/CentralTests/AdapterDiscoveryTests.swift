@testable import BlueZClient
@testable import Central
import DBusCore
import Testing

@Suite("Which adapter heard a sound: found by path, or without a look when one adapter is all there is")
struct AdapterDiscoveryTests {
    let hci0 = BlueZPath(ObjectPath("/org/bluez/hci0"))
    let hci1 = BlueZPath(ObjectPath("/org/bluez/hci1"))
    let onHci0 = BlueZPath(ObjectPath("/org/bluez/hci0/dev_DC_A6_32_00_00_01"))
    let onHci1 = BlueZPath(ObjectPath("/org/bluez/hci1/dev_DC_A6_32_00_00_02"))

    /// Discovery that reports the next sound on each adapter in use.
    private func awaitingSounds(using paths: [BlueZPath], present: Int) -> AdapterDiscovery {
        var discovery = AdapterDiscovery()
        discovery.follow(paths, present: present)
        for path in paths { discovery.modify(path) { $0.reportsNextSound = true } }
        return discovery
    }

    @Test("The only adapter there hears every device")
    func soleAdapter() {
        var discovery = awaitingSounds(using: [hci0], present: 1)
        #expect(discovery.heard(onHci0) == hci0)
    }

    @Test("One adapter in use of two: a device on the other is not its sound")
    func oneOfTwo() {
        var discovery = awaitingSounds(using: [hci0], present: 2)
        #expect(discovery.heard(onHci1) == nil)
        #expect(discovery[hci0]?.reportsNextSound == true)
        #expect(discovery.heard(onHci0) == hci0)
    }

    @Test("Two adapters in use: each sound goes to the adapter it came through")
    func twoInUse() {
        var discovery = awaitingSounds(using: [hci0, hci1], present: 2)
        #expect(discovery.heard(onHci1) == hci1)
        #expect(discovery[hci0]?.reportsNextSound == true)
        #expect(discovery.heard(onHci0) == hci0)
    }

    @Test("A second adapter appearing ends the shortcut")
    func adapterAppears() {
        var discovery = awaitingSounds(using: [hci0], present: 1)
        discovery.follow([hci0], present: 2)
        #expect(discovery.heard(onHci1) == nil)
        #expect(discovery.heard(onHci0) == hci0)
    }
}
