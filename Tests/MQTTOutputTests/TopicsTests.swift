@testable import MQTTOutput
import SensorModel
import Testing

@Suite struct TopicsTests {
    @Test func aDeviceIDIsTheAddressInLowerCaseWithoutColons() {
        #expect(Topics.deviceID("DC:A6:32:00:00:01") == "dca632000001")
        #expect(Topics.deviceID("a4:c1:38:ad:00:0f") == "a4c138ad000f")
    }

    @Test(arguments: [0, 1, 0xFFFF_FFFF_FFFF, 0x0123_4567_89AB, 0xA4C1_38AD_000F])
    func everyAddressGetsTwelveLowerCaseHexDigits(_ value: UInt64) {
        let address = BluetoothAddress(value: value)
        #expect(Topics.deviceID(address) == address.description.lowercased().filter { $0 != ":" })
    }
}
