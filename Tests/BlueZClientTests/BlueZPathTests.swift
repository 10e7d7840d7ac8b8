@testable import BlueZClient
import DBusCore
import Testing
import SensorModel

@Suite struct BlueZPathTests {
    private let device = BlueZPath("/org/bluez/hci0/dev_DC_A6_32_0F_E0_09")

    @Test func aDevicePathIsItsOwnDevice() {
        #expect(device.device == device)
        #expect(device.deviceAddress == BluetoothAddress("DC:A6:32:0F:E0:09"))
    }

    @Test func aGattObjectBelongsToTheDeviceAboveIt() {
        let characteristic = BlueZPath("/org/bluez/hci0/dev_DC_A6_32_0F_E0_09/service000a/char000b")
        #expect(characteristic.device == device)
        #expect(characteristic.deviceAddress == BluetoothAddress("DC:A6:32:0F:E0:09"))
    }

    @Test(arguments: ["/", "/org/bluez/hci0", "/org/bluez/hci0/xdev_DC_A6_32_0F_E0_09", "/org/bluez/dev_x/hci0"])
    func otherPathsHaveNoDeviceAddress(_ text: String) {
        let path = BlueZPath(ObjectPath(text)!)
        #expect(path.deviceAddress == nil)
        #expect((path.device == nil) == !text.contains("/dev_"))
    }

    @Test(arguments: [
        ("/org/bluez/hci0/dev_DC_A6_32_0F_E0_09", true), ("/org/bluez/hci0/dev_DC_A6_32_0F_E0_09/service000a", true),
        ("/org/bluez/hci0", false), ("/org/bluez/hci01/dev_DC_A6_32_0F_E0_09", false),
        ("/org/bluez/hci1/dev_DC_A6_32_0F_E0_09", false), ("/org/bluez", false),
    ])
    func aPathIsBelowTheAdapterItStartsWith(_ text: String, _ below: Bool) {
        #expect(BlueZPath(ObjectPath(text)!).isBelow(BlueZPath("/org/bluez/hci0")) == below)
    }

    @Test func anElementNamedLikeADeviceWithoutAnAddressIsADeviceWithoutOne() {
        let path = BlueZPath("/org/bluez/dev_x/hci0")
        #expect(path.device == BlueZPath("/org/bluez/dev_x"))
    }
}
