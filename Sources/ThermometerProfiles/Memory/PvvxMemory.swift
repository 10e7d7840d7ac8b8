public import SensorModel

/// The pvvx ATC_MiThermometer firmware's memory and clock over its command characteristic
/// (service 0x1F10, characteristic 0x1F1F: read, write without response, notify).
///
/// Facts and their sources (the firmware's `src/cmd_parser.c`, `src/ble.c`, `src/logger.c`)
/// are in docs/sensor-memory.md. In short, all little-endian:
/// - `35 cc cc [ss ss]` asks for `c` records, passing over the newest `s`; `35 00 00` stops.
/// - Each record comes as `35 nn nn tt tt tt tt TT TT HH HH VV VV` (13 bytes): its number
///   (1 = the newest), a uint32 time, an int16 temperature in 0.01 °C, a uint16 humidity in
///   0.01 %, a uint16 battery voltage in mV; newest first.
/// - `35 00 00` (3 bytes) ends the download: all asked for were sent, or memory ran out.
/// - `23` reads the clock, `23 tt tt tt tt` sets it; both answer `23 tt tt tt tt [ll ll ll ll]`
///   (the time, then the last time set where the firmware adjusts its clock).
/// - An unknown command answers `cc FF`.
public struct PvvxMemory: SensorMemoryProtocol {
    /// The command service, 0x1F10.
    public static let serviceUUID = BluetoothUUID(UInt16(0x1F10))
    /// The command characteristic, 0x1F1F.
    public static let characteristicUUID = BluetoothUUID(UInt16(0x1F1F))
    /// `CMD_ID_LOGGER`: read memory records.
    public static let loggerCommand: UInt8 = 0x35
    /// `CMD_ID_UTC_TIME`: get or set the clock.
    public static let clockCommand: UInt8 = 0x23
    /// A record notification's length: the command, a 2-byte number, a 10-byte `memo_blk_t`.
    public static let recordLength = 13
    /// The most records one request can ask for (the count is 16 bits).
    public static let maximumCount = 0xFFFF
    /// The time the firmware stamps when its clock reads 0xFFFFFFFF (`write_memo`).
    public static let invalidClockTime: UInt32 = 0xFFFF_FFFE

    /// The family: the pvvx firmware's own advertising format.
    public var family: SensorFamily { PVVXProfile.family }
    /// The firmware's encrypted beacons come from the same firmware.
    public var alsoAdvertisedAs: [ProfileID] { ["pvvx-encrypted"] }
    /// 0x1F10.
    public var service: BluetoothUUID { Self.serviceUUID }
    /// 0x1F1F carries every answer.
    public var notifyCharacteristic: BluetoothUUID { Self.characteristicUUID }
    /// Newest first (`get_memo` counts back from the newest).
    public var recordOrder: MemoryRecordOrder { .newestFirst }

    /// The protocol.
    public init() {}

    /// `35 cc cc ss ss`; a request by time asks for every record and is stopped by the
    /// downloader at the first one not newer.
    public func requestWrites(for request: MemoryRequest) -> [MemoryWrite] {
        let skip = min(request.skipping, Self.maximumCount)
        // The firmware counts the skipped records in its count: it sends numbers skip+1...count.
        let count = min((request.limit ?? Self.maximumCount) + skip, Self.maximumCount)
        guard count > skip else { return [] }
        return [command([Self.loggerCommand] + Self.littleEndian16(count) + Self.littleEndian16(skip))]
    }

    /// `35 00 00`: a count of zero ends the firmware's download without an end marker.
    public var stopWrites: [MemoryWrite] { [command([Self.loggerCommand, 0x00, 0x00])] }

    /// `23` alone.
    public var readClockWrites: [MemoryWrite] { [command([Self.clockCommand])] }

    /// `23 tt tt tt tt`.
    public func setClockWrites(to unixTime: UInt32) -> [MemoryWrite] {
        [command([Self.clockCommand] + (0..<4).map { UInt8(truncatingIfNeeded: unixTime >> (8 * $0)) })]
    }

    /// Reads a record, the end marker, a clock answer or an error reply.
    public func parse(_ value: [UInt8]) throws(SensorMemoryError) -> MemoryNotification {
        guard let command = value.first else {
            throw SensorMemoryError(.truncated, raw: value, detail: "empty notification")
        }
        if value.count == 2, value[1] == 0xFF { return .refused(command: command) }
        switch command {
        case Self.loggerCommand: return try parseLogger(value)
        case Self.clockCommand: return try parseClock(value)
        default: return .unrelated
        }
    }

    private func parseLogger(_ value: [UInt8]) throws(SensorMemoryError) -> MemoryNotification {
        if value.count == 3, value[1] == 0, value[2] == 0 { return .end }
        try SensorMemoryError.requireLength(value, Self.recordLength, of: "a record")
        return .record(try record(value))
    }

    private func record(_ value: [UInt8]) throws(SensorMemoryError) -> SensorMemoryRecord {
        let time = UInt32(value.unsignedLittleEndian(at: 3, count: 4))
        if time == 0xFFFF_FFFF {
            throw SensorMemoryError(.erasedRecord, raw: value, detail: "time 0xffffffff: erased flash")
        }
        if time == Self.invalidClockTime {
            throw SensorMemoryError(.impossibleTime, raw: value, detail: "time 0xfffffffe: the clock was invalid")
        }
        var builder = QuantitiesBuilder(profile: family.id, raw: value)
        do {
            try builder.add(.temperature, value.signedLittleEndian(at: 7, count: 2), per: 100)
            try builder.add(.humidity, value.unsignedLittleEndian(at: 9, count: 2), per: 100)
            try builder.add(.voltage, value.unsignedLittleEndian(at: 11, count: 2), per: 1000)
        } catch {
            throw SensorMemoryError(.impossibleValue, raw: value, detail: error.detail ?? "\(error.kind)")
        }
        return SensorMemoryRecord(
            number: UInt32(value.unsignedLittleEndian(at: 1, count: 2)), deviceTime: time,
            measurement: builder.measurement(), dropped: builder.dropped)
    }

    private func parseClock(_ value: [UInt8]) throws(SensorMemoryError) -> MemoryNotification {
        guard value.count >= 5 else {
            throw SensorMemoryError(.truncated, raw: value, detail: "\(value.count) bytes, a clock answer has 5 or 9")
        }
        guard value.count <= 9 else {
            throw SensorMemoryError(.oversized, raw: value, detail: "\(value.count) bytes, a clock answer has 5 or 9")
        }
        let lastSet = value.count == 9 ? UInt32(value.unsignedLittleEndian(at: 5, count: 4)) : nil
        return .clock(
            SensorClockReading(deviceTime: UInt32(value.unsignedLittleEndian(at: 1, count: 4)), lastSetTime: lastSet))
    }

    /// Every write is a command: the characteristic has no write-with-response.
    private func command(_ value: [UInt8]) -> MemoryWrite {
        MemoryWrite(characteristic: Self.characteristicUUID, value: value, withResponse: false)
    }

    private static func littleEndian16(_ value: Int) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
    }
}
