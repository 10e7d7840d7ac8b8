@testable import BlueZClient
import Testing
import SensorModel

@Suite struct BluetoothAddressTests {
    @Test func parsesEitherCaseAndWritesUpperCase() throws {
        let address = try #require(BluetoothAddress("dc:a6:32:0f:e0:09"))
        #expect(address.description == "DC:A6:32:0F:E0:09")
        #expect(address.devicePathElement == "dev_DC_A6_32_0F_E0_09")
        #expect(address.bytes == [0xDC, 0xA6, 0x32, 0x0F, 0xE0, 0x09])
        #expect(BluetoothAddress("DC:A6:32:0F:E0:09") == address)
    }

    @Test func readsDevicePathElements() {
        #expect(BluetoothAddress(devicePathElement: "dev_00_1A_7D_DA_71_13")?.description == "00:1A:7D:DA:71:13")
        #expect(BluetoothAddress(devicePathElement: "service0010") == nil)
    }

    @Test(arguments: ["", "DC:A6:32:0F:E0", "DC:A6:32:0F:E0:0G", "DC-A6-32-0F-E0-09", "DC:A6:32:0F:E0:091"])
    func rejectsNonAddresses(_ text: String) {
        #expect(BluetoothAddress(text) == nil)
    }

    @Test func ordersByValue() throws {
        let low = try #require(BluetoothAddress("00:00:00:00:00:FF"))
        let high = try #require(BluetoothAddress("00:00:00:00:01:00"))
        #expect(low < high)
        #expect(!(high < low))
    }
}
