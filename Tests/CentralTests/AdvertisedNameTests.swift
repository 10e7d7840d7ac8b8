@testable import BlueZClient
import DBusCore
import Testing

@testable import Central
import SensorModel

/// Which discoveries name a thermometer: what it advertises, never the GAP name BlueZ
/// caches (on a Pi "BlueZ 5.66", found by the real-BlueZ suite after a bluetoothd crash).
@Suite("The advertised name of a thermometer")
struct AdvertisedNameTests {
    static let configured = ["Thermometer"]

    func discovery(_ name: String?, rssi: Int16?) -> Discovery {
        let address = BluetoothAddress("DC:A6:32:00:00:01")
        return Discovery(
            peripheral: Peripheral(
                address: address, path: BlueZPath("/org/bluez/hci0/dev_DC_A6_32_00_00_01"), name: name),
            advertisement: AdvertisementData(
                localName: name, serviceUUIDs: [], manufacturerData: [:], serviceData: [:], txPower: nil),
            rssi: rssi)
    }

    func learnt(_ name: String?, rssi: Int16?, known: String? = nil, connected: Bool = false) -> String? {
        DeviceMemory.advertisedName(
            in: discovery(name, rssi: rssi), known: known, connected: connected, configured: Self.configured)
    }

    @Test("a heard advertisement names it")
    func heard() {
        #expect(learnt("Thermometer", rssi: -52) == "Thermometer")
    }

    @Test("a device BlueZ restored from its cache (no RSSI) does not")
    func restored() {
        #expect(learnt("BlueZ 5.66", rssi: nil, known: "Thermometer") == nil)
        #expect(learnt("BlueZ 5.66", rssi: nil) == nil)
    }

    @Test("nor does a connected device (its Name is the GAP name)")
    func connected() {
        #expect(learnt("BlueZ 5.66", rssi: -52, known: "Thermometer", connected: true) == nil)
    }

    @Test("a configured name once heard is kept over another; otherwise the latest wins")
    func configuredNameSticks() {
        #expect(learnt("BlueZ 5.66", rssi: -52, known: "Thermometer") == nil)
        #expect(learnt("Thermometer", rssi: -52, known: "BlueZ 5.66") == "Thermometer")
        #expect(learnt("Probe 2", rssi: -52, known: "Probe 1") == "Probe 2")
    }
}
