@testable import MQTTOutput
import Testing

@Suite struct TopicsTests {
    @Test func aDeviceIDIsTheAddressInLowerCaseWithoutColons() {
        #expect(Topics.deviceID("DC:A6:32:00:00:01") == "dca632000001")
        #expect(Topics.deviceID("a4:c1:38:ad:00:0f") == "a4c138ad000f")
    }

    @Test(arguments: ["", ":::", "AZaz09@[`{", "Ä:b:Ç", "x\r\ny:Z", "Straße:İ", "DC:A6:32:00:00:01"])
    func anyTextGetsTheCharacterByCharacterID(_ text: String) {
        #expect(Topics.deviceID(text) == String(text.lowercased().filter { $0 != ":" }))
    }
}
