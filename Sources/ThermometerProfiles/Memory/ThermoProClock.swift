public import SensorModel

/// The display clock of ThermoPro's TP358 and TP393: set by one 10-byte write to
/// `00010203-0405-0607-0809-0a0b0c0d2b11` in service `…1910`, in local time, and never
/// read back (the firmware offers no read). No records are read: their memory is another
/// protocol, not spoken here.
///
/// The value, as Home Assistant's thermopro-ble (`ThermoProDevice.set_datetime`) and
/// bluetooth-clocks (`TPXXX`) write it: `A5`, year − 2000, month, day, hour, minute, second,
/// the weekday (1 Monday … 7 Sunday), `01` for a 24-hour display, `5A`. thermopro-ble writes
/// it with a response (bluetooth-clocks without): with one, the sensor says it took it.
public struct ThermoProClock: SensorMemoryProtocol {
    /// The service of the clock characteristic.
    public static let serviceUUID = BluetoothUUID("00010203-0405-0607-0809-0a0b0c0d1910")!
    /// The clock characteristic, written only.
    public static let clockUUID = BluetoothUUID("00010203-0405-0607-0809-0a0b0c0d2b11")!
    /// The models with a display clock.
    public static let clockModels: Set<String> = ["TP358", "TP393"]

    /// ThermoPro's thermo-hygrometers.
    public var family: SensorFamily { ThermoProProfile.family }
    /// None.
    public var alsoAdvertisedAs: [ProfileID] { [] }
    /// `…1910`.
    public var service: BluetoothUUID { Self.serviceUUID }
    /// The clock characteristic: nothing is notified.
    public var notifyCharacteristic: BluetoothUUID { Self.clockUUID }
    /// No records.
    public var recordOrder: MemoryRecordOrder { .oldestFirst }
    /// None: no records are read.
    public var readsRecords: Bool { false }
    /// None.
    public var stopWrites: [MemoryWrite] { [] }
    /// None: the clock cannot be read.
    public var readClockWrites: [MemoryWrite] { [] }

    /// Creates the protocol.
    public init() {}

    /// Only the models with a display clock, told apart by their name (the reading's model).
    public var models: Set<String>? { Self.clockModels }

    /// None: no records are read.
    public func requestWrites(for request: MemoryRequest) -> [MemoryWrite] { [] }

    /// The time in UTC: as ``setClockWrites(to:utcOffset:)`` with no offset.
    public func setClockWrites(to unixTime: UInt32) -> [MemoryWrite] { setClockWrites(to: unixTime, utcOffset: 0) }

    /// The local time `unixTime` shows `utcOffset` seconds ahead of UTC, 24-hour display.
    public func setClockWrites(to unixTime: UInt32, utcOffset: Int) -> [MemoryWrite] {
        let local = Int64(unixTime) + Int64(utcOffset)
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        let second = local - days * 86_400
        let date = CivilDate.date(daysSince1970: days)
        // 1970-01-01 was a Thursday: weekday 4 counting Monday as 1.
        let weekday = ((days % 7 + 7) % 7 + 3) % 7 + 1
        let value: [UInt8] = [
            0xA5, UInt8(clamping: date.year - 2000), UInt8(date.month), UInt8(date.day), UInt8(second / 3600),
            UInt8(second / 60 % 60), UInt8(second % 60), UInt8(weekday), 0x01, 0x5A,
        ]
        return [MemoryWrite(characteristic: Self.clockUUID, value: value, withResponse: true)]
    }

    /// Nothing is notified: any value is refused.
    public func parse(_ value: [UInt8]) throws(SensorMemoryError) -> MemoryNotification {
        throw SensorMemoryError(.oversized, raw: value, detail: "the ThermoPro clock notifies nothing")
    }
}
