import Central
import Testing

@Suite("A sensor's clock before and after it was set")
struct SensorClockMapTests {
    /// Set at gateway time 10,000 (stamp 10,000 on the new clock); records every 60 s.
    static let setAt: UInt32 = 10_000

    @Test("a clock that was ahead: records from before the setting keep the earlier drift, found by their order")
    func aheadBeforeTheSetting() {
        // The clock was 300 s ahead, then set right (drift 0 now).
        var map = SensorClockMap(drift: 0, earlier: SensorClockSetting(until: Self.setAt, drift: 300))
        // Newest first: two records made after the setting, then three from before it, whose
        // stamps (real + 300) lie above the setting's.
        let made: [Int64] = [10_120, 10_060, 9_960, 9_900, 9_840]
        let stamps: [UInt32] = [10_120, 10_060, 10_260, 10_200, 10_140]
        #expect(stamps.map { map.gatewayTime(ofNext: $0) } == made)
        // By stamp alone the old ones land 300 s late, after the setting.
        let byStamp = SensorClockMap(drift: 0, earlier: SensorClockSetting(until: Self.setAt, drift: 300))
        #expect(stamps.map { byStamp.gatewayTime(of: $0) } != made)
    }

    @Test("a clock that was behind: a stamp before the setting's is the earlier clock's")
    func behindBeforeTheSetting() {
        var map = SensorClockMap(drift: 1, earlier: SensorClockSetting(until: Self.setAt, drift: -3_600))
        let stamps: [UInt32] = [10_121, 10_061, 6_360, 6_300]
        #expect(stamps.map { map.gatewayTime(ofNext: $0) } == [10_120, 10_060, 9_960, 9_900])
    }

    @Test(
        "a clock that was ahead, records numbered upward oldest first: the number at the setting tells the last ones apart"
    )
    func aheadNumberedUpward() {
        // Records 7-9 made before the setting (the last two stamped above it), 10-11 after it;
        // the sensor's next number at the setting was 10.
        let setting = SensorClockSetting(until: Self.setAt, drift: 300, firstNumberAfter: 10)
        let map = SensorClockMap(drift: 0, earlier: setting)
        let records: [(number: UInt32, stamp: UInt32)] = [
            (7, 10_140), (8, 10_200), (9, 10_260), (10, 10_060), (11, 10_120),
        ]
        let made: [Int64] = [9_840, 9_900, 9_960, 10_060, 10_120]
        #expect(records.map { map.gatewayTime(of: $0.stamp, number: $0.number) } == made)
        // Without the number, the stamps above the setting's are taken for records made after it.
        let byStamp = SensorClockMap(drift: 0, earlier: SensorClockSetting(until: Self.setAt, drift: 300))
        #expect(records.map { byStamp.gatewayTime(of: $0.stamp) } == [10_140, 10_200, 10_260, 10_060, 10_120])
        // A stamp its earlier time would place after the setting is the clock now's, whatever its number.
        #expect(map.gatewayTime(of: 10_400, number: 3) == 10_400)
    }

    @Test("without a setting, the drift now applies to every record, in any order")
    func noSetting() {
        var map = SensorClockMap(drift: -5)
        #expect([100, 200, 50].map { map.gatewayTime(ofNext: $0) } == [105, 205, 55])
    }
}
