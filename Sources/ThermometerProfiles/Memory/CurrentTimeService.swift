import SensorModel

/// The Bluetooth SIG's Current Time Service (0x1805) and its Current Time characteristic
/// (0x2A2B): the standard clock any GATT device may offer, read and set by blectld on the
/// devices it connects to (docs/sensor-memory.md, "Current Time Service").
public enum CurrentTimeService {
    /// The service, 0x1805.
    public static let service = BluetoothUUID(UInt16(0x1805))
    /// Current Time, 0x2A2B: read (and notify) the clock; written where the device lets it be set.
    public static let currentTime = BluetoothUUID(UInt16(0x2A2B))
    /// Local Time Information, 0x2A0F: the time zone and daylight-saving offset of the local
    /// time Current Time holds; written with it where the device lets it be.
    public static let localTimeInformation = BluetoothUUID(UInt16(0x2A0F))
}

/// A value of the Local Time Information characteristic: the time zone (sint8, in 15 minutes
/// from UTC, standard time) and the DST offset (uint8: 0 standard, 2 half an hour, 4 an hour,
/// 8 two hours), 2 bytes.
public struct LocalTimeInformation: Sendable, Equatable {
    /// The standard time's offset from UTC, in 15-minute steps (-48…56).
    public var timeZone: Int8
    /// The daylight-saving offset's code: 0, 2, 4 or 8.
    public var dstOffset: UInt8

    /// The zone of a local time `utcOffset` seconds ahead of UTC, an hour of it daylight
    /// saving when `daylightSaving` (what `localtime_r` tells: the offset and `tm_isdst`).
    public init(utcOffset: Int, daylightSaving: Bool) {
        let standard = utcOffset - (daylightSaving ? 3600 : 0)
        timeZone = Int8(clamping: standard / 900)
        dstOffset = daylightSaving ? 4 : 0
    }

    /// The 2 bytes to write.
    public var bytes: [UInt8] { [UInt8(bitPattern: timeZone), dstOffset] }
}

/// A value of the Current Time characteristic: Exact Time 256 (Day Date Time and Fractions256)
/// and Adjust Reason, 10 bytes, little-endian.
///
/// The CTS specification calls the time local: blectl writes the gateway's local time (the
/// civil time of its seconds plus the zone's offset) and reads the device's time back as such.
public struct CurrentTime: Sendable, Equatable {
    /// Year, 1582…9999; 0 when the device does not know it.
    public var year: UInt16
    /// Month, 1…12; 0 unknown.
    public var month: UInt8
    /// Day of the month, 1…31; 0 unknown.
    public var day: UInt8
    /// Hours, 0…23.
    public var hours: UInt8
    /// Minutes, 0…59.
    public var minutes: UInt8
    /// Seconds, 0…59.
    public var seconds: UInt8
    /// Day of the week, 1 = Monday … 7 = Sunday; 0 unknown.
    public var dayOfWeek: UInt8
    /// Fractions of a second in 1/256 s.
    public var fractions256: UInt8
    /// Adjust Reason bits: ``manualTimeUpdate``, external reference, time zone, DST change.
    public var adjustReason: UInt8

    /// Adjust Reason bit 0: the time was set by hand (what a gateway's write is).
    public static let manualTimeUpdate: UInt8 = 0x01
    /// The characteristic's length.
    public static let length = 10

    /// A value from its fields.
    public init(
        year: UInt16, month: UInt8, day: UInt8, hours: UInt8, minutes: UInt8, seconds: UInt8, dayOfWeek: UInt8,
        fractions256: UInt8 = 0, adjustReason: UInt8 = 0
    ) {
        (self.year, self.month, self.day) = (year, month, day)
        (self.hours, self.minutes, self.seconds) = (hours, minutes, seconds)
        (self.dayOfWeek, self.fractions256, self.adjustReason) = (dayOfWeek, fractions256, adjustReason)
    }

    /// The civil time of `unixTime` (seconds since 1970; add the zone's offset for a local
    /// time), marked a manual update.
    public init(unixTime: Int64, fractions256: UInt8 = 0, adjustReason: UInt8 = CurrentTime.manualTimeUpdate) {
        let days = unixTime >= 0 ? unixTime / 86_400 : (unixTime - 86_399) / 86_400
        let secondOfDay = unixTime - days * 86_400
        let (year, month, day) = CivilDate.date(daysSince1970: days)
        // 1970-01-01 was a Thursday (4 with Monday 1).
        let weekday = ((days + 3) % 7 + 7) % 7 + 1
        self.init(
            year: UInt16(clamping: year), month: UInt8(month), day: UInt8(day), hours: UInt8(secondOfDay / 3600),
            minutes: UInt8(secondOfDay / 60 % 60), seconds: UInt8(secondOfDay % 60), dayOfWeek: UInt8(weekday),
            fractions256: fractions256, adjustReason: adjustReason)
    }

    /// Reads a value of the characteristic; bytes past the 10 the specification defines are
    /// passed over (a later version may add some).
    ///
    /// - Throws: ``SensorMemoryError`` `truncated` under 10 bytes, `impossible-time` for a
    ///   field out of its range (a month 13, an hour 24).
    public init(bytes: [UInt8]) throws(SensorMemoryError) {
        guard bytes.count >= Self.length else {
            throw SensorMemoryError(
                .truncated, raw: bytes, detail: "a Current Time value is 10 bytes, not \(bytes.count)")
        }
        self.init(
            year: UInt16(bytes[0]) | UInt16(bytes[1]) << 8, month: bytes[2], day: bytes[3], hours: bytes[4],
            minutes: bytes[5], seconds: bytes[6], dayOfWeek: bytes[7], fractions256: bytes[8], adjustReason: bytes[9])
        let valid =
            (year == 0 || (1582...9999).contains(year)) && month <= 12 && day <= 31 && hours <= 23 && minutes <= 59
            && seconds <= 59 && dayOfWeek <= 7
        guard valid else {
            throw SensorMemoryError(.impossibleTime, raw: bytes, detail: "a Current Time field is out of its range")
        }
    }

    /// The 10 bytes to write.
    public var bytes: [UInt8] {
        [
            UInt8(year & 0xFF), UInt8(year >> 8), month, day, hours, minutes, seconds, dayOfWeek, fractions256,
            adjustReason,
        ]
    }

    /// Seconds since 1970 of the civil time (a local time's still hold its zone's offset);
    /// nil when the device does not know its date.
    public var unixTime: Int64? {
        guard year != 0, month != 0, day != 0 else { return nil }
        let days = CivilDate.daysSince1970(year: Int64(year), month: Int64(month), day: Int64(day))
        return days * 86_400 + Int64(hours) * 3600 + Int64(minutes) * 60 + Int64(seconds)
    }
}
