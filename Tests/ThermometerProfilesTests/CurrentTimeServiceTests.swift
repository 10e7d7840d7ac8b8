import SensorModel
import Testing
import ThermometerProfiles

/// The Current Time characteristic (0x2A2B) laid out as the Bluetooth SIG's CTS specification
/// and GATT Specification Supplement give it: year uint16 LE, month, day, hours, minutes,
/// seconds, day of week (1 = Monday … 7 = Sunday, 0 unknown), fractions256, adjust reason
/// (bit 0 manual time update). The dates' Unix times and weekdays checked with `date -u`.
@Suite("Current Time Service (0x1805 / 0x2A2B)")
struct CurrentTimeServiceTests {
    @Test("the service and the characteristic are the SIG's")
    func uuids() {
        #expect(CurrentTimeService.service == BluetoothUUID(UInt16(0x1805)))
        #expect(CurrentTimeService.currentTime == BluetoothUUID(UInt16(0x2A2B)))
    }

    @Test(
        "a time encodes to the 10-byte layout and back",
        arguments: [
            // 2013-09-16 12:30:45, a Monday: year 0x07DD.
            (Int64(1_379_334_645), "dd0709100c1e2d010001"),
            // 1970-01-01 00:00:00, a Thursday.
            (Int64(0), "b2070101000000040001"),
            // 2000-02-29, a Tuesday (a leap day of a century divisible by 400).
            (Int64(951_782_400), "d007021d000000020001"),
            // 2026-12-05 23:01:02, a Saturday.
            (Int64(1_796_511_662), "ea070c05170102060001"),
            // 2038-01-19 03:14:07, the last second of int32, a Tuesday.
            (Int64(2_147_483_647), "f6070113030e07020001"),
            // 2100-03-01, a Monday (2100 is not a leap year).
            (Int64(4_107_542_400), "34080301000000010001"),
        ])
    func roundTrip(unixTime: Int64, hex: String) throws {
        let expected = bytes(hex: hex)
        let time = CurrentTime(unixTime: unixTime)
        #expect(time.bytes == expected)
        #expect(time.adjustReason == CurrentTime.manualTimeUpdate)
        let read = try CurrentTime(bytes: expected)
        #expect(read == time)
        #expect(read.unixTime == unixTime)
    }

    @Test("a read value's fields, fractions and reason")
    func fields() throws {
        // 2013-09-16 12:30:45.5 (128/256 s), Monday, adjusted by an external reference (bit 1).
        let time = try CurrentTime(bytes: bytes(hex: "dd0709100c1e2d018002"))
        #expect(time.year == 2013 && time.month == 9 && time.day == 16)
        #expect(time.hours == 12 && time.minutes == 30 && time.seconds == 45)
        #expect(time.dayOfWeek == 1 && time.fractions256 == 128 && time.adjustReason == 0x02)
        #expect(time.unixTime == 1_379_334_645)
    }

    @Test("an unknown date has no time; bytes past the tenth are passed over")
    func unknownAndLonger() throws {
        let unknown = try CurrentTime(bytes: [0, 0, 0, 0, 10, 0, 0, 0, 0, 0])
        #expect(unknown.unixTime == nil)
        let longer = try CurrentTime(bytes: bytes(hex: "b207010100000004000100ff"))
        #expect(longer.unixTime == 0)
    }

    @Test("Local Time Information: the standard zone in quarter hours and the DST code")
    func localTimeInformation() {
        // India (+5:30, no DST), Central European Summer Time (+2:00 of which 1 h DST), New York in winter (-5:00).
        #expect(LocalTimeInformation(utcOffset: 19_800, daylightSaving: false).bytes == [22, 0])
        #expect(LocalTimeInformation(utcOffset: 7_200, daylightSaving: true).bytes == [4, 4])
        #expect(LocalTimeInformation(utcOffset: -18_000, daylightSaving: false).bytes == [0xEC, 0])
        #expect(LocalTimeInformation(utcOffset: 0, daylightSaving: false).bytes == [0, 0])
    }

    @Test("a short value or a field out of range is refused")
    func refused() {
        #expect(throws: SensorMemoryError.self) { try CurrentTime(bytes: [0xB2, 0x07, 1, 1, 0, 0, 0, 4, 0]) }
        do {
            _ = try CurrentTime(bytes: bytes(hex: "b2070d01000000040000"))  // month 13
            Issue.record("month 13 accepted")
        } catch {
            #expect(error.kind == .impossibleTime)
        }
        // Hour 24, then weekday 8.
        #expect(throws: SensorMemoryError.self) { try CurrentTime(bytes: bytes(hex: "b2070101180000040000")) }
        #expect(throws: SensorMemoryError.self) { try CurrentTime(bytes: bytes(hex: "b2070101000000080000")) }
    }
}
