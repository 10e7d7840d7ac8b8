public import SensorModel

/// Xiaomi's stock firmware on the LYWSD03MMC and MHO-C401, or on the LYWSD02 (``Model``):
/// its hourly records and its clock over the service `ebe0ccb0-7a0a-4b0c-8a1a-6ff2997da3a6`,
/// no bind key needed.
///
/// Facts and their sources are in docs/sensor-memory.md ("Xiaomi stock firmware"). In
/// short, all little-endian:
/// - `ebe0ccb7` (read, write): the clock, a uint32 of seconds since 1970 (the LYWSD02 adds an
///   int8 time-zone hour).
/// - `ebe0ccb9` (read): the index of the newest record, then the next index (the count).
/// - `ebe0ccba` (read, write): the index the records are sent from.
/// - `ebe0ccbc` (notify): records from that index on, oldest first, no end marker, each
///   `ii ii ii ii tt tt tt tt XX XX xh NN NN nh`: the index, the time (a whole hour), the
///   hour's highest temperature in 0.1 °C (int16; the LYWSD02's in 0.01 °C), its highest
///   humidity (%), its lowest temperature and its lowest humidity.
///
/// A record becomes one measurement stamped at the record's time, its temperature and
/// humidity the midpoints of the hour's extremes (both extremes stay in the raw value).
public struct XiaomiStockMemory: SensorMemoryProtocol {
    /// The firmware's data service.
    public static let serviceUUID = Self.uuid("ebe0ccb0")
    /// The clock (read, write).
    public static let clockUUID = Self.uuid("ebe0ccb7")
    /// The newest record's index and the next one (read).
    public static let rangeUUID = Self.uuid("ebe0ccb9")
    /// The index records are sent from (read, write).
    public static let indexUUID = Self.uuid("ebe0ccba")
    /// The records (notify).
    public static let recordsUUID = Self.uuid("ebe0ccbc")
    /// A record notification's length.
    public static let recordLength = 14
    /// How far apart records are: an hour.
    public static let recordInterval: UInt32 = 3600

    /// The models whose firmware this speaks, which differ in the records' unit and the clock.
    public enum Model: Sendable, Equatable {
        /// The LYWSD03MMC and the MHO-C401: temperatures in 0.1 °C, a 4-byte clock.
        case lywsd03mmc
        /// The LYWSD02 (e-ink, with a clock on its display): temperatures in 0.01 °C
        /// (h4/lywsd02), the clock with an int8 time-zone hour after it.
        case lywsd02
    }

    /// The models this instance reads.
    public let model: Model

    /// Stock sensors advertise MiBeacon.
    public var family: SensorFamily { XiaomiMiBeaconProfile.family }
    /// None besides.
    public var alsoAdvertisedAs: [ProfileID] { [] }
    /// The data service.
    public var service: BluetoothUUID { Self.serviceUUID }
    /// The records' characteristic.
    public var notifyCharacteristic: BluetoothUUID { Self.recordsUUID }
    /// Oldest first, from the index written.
    public var recordOrder: MemoryRecordOrder { .oldestFirst }
    /// The clock is a characteristic of its own.
    public var clockCharacteristic: BluetoothUUID? { Self.clockUUID }
    /// The range, to find the index to start from, and the clock, to count the hours back.
    public var requestReads: [BluetoothUUID] { [Self.rangeUUID, Self.clockUUID] }
    /// The firmware starts sending when the subscription arrives, from the index it holds.
    public var subscribesAfterRequest: Bool { true }

    /// The protocol of `model`'s firmware.
    public init(_ model: Model = .lywsd03mmc) { self.model = model }

    /// The models as their MiBeacon frames name them (by product id).
    public var models: Set<String>? { model == .lywsd02 ? ["LYWSD02"] : ["LYWSD03MMC", "MHO-C401"] }

    /// A record's temperature units per °C.
    var temperatureSteps: Int { model == .lywsd02 ? 100 : 10 }

    /// Only through ``plan(for:reads:)``: the index depends on the sensor's range.
    public func requestWrites(for request: MemoryRequest) -> [MemoryWrite] { [] }

    /// The index to start from, numbered from the first record of the request's range.
    ///
    /// For `.newer(than:)` the range goes back one record per whole hour of the sensor's
    /// clock since that time, and one more: a record not newer is passed over.
    public func plan(for request: MemoryRequest, reads: [BluetoothUUID: [UInt8]]) -> MemoryPlan {
        guard let next = nextRecordNumber(reads: reads) else { return MemoryPlan(writes: []) }
        let wanted: UInt32
        switch request {
        case .newest(let count, _):
            wanted = UInt32(clamping: max(0, count))
        case .newer(let since, _):
            guard let clock = reads[Self.clockUUID], clock.count >= 4 else {
                wanted = next
                break
            }
            let now = UInt32(clock.unsignedLittleEndian(at: 0, count: 4))
            let hours =
                now / Self.recordInterval >= since / Self.recordInterval
                ? now / Self.recordInterval - since / Self.recordInterval : 0
            wanted = hours + 1
        }
        let first = next > wanted ? next - wanted : 0
        let (start, overflow) = first.addingReportingOverflow(UInt32(clamping: request.skipping))
        guard !overflow, start < next else { return MemoryPlan(writes: []) }
        let write = MemoryWrite(characteristic: Self.indexUUID, value: Self.littleEndian32(start), withResponse: true)
        return MemoryPlan(writes: [write], firstNumber: first, lastNumber: next - first)
    }

    /// The range's next index.
    public func nextRecordNumber(reads: [BluetoothUUID: [UInt8]]) -> UInt32? {
        guard let range = reads[Self.rangeUUID], range.count >= 8 else { return nil }
        return UInt32(range.unsignedLittleEndian(at: 4, count: 4))
    }

    /// None known: the central unsubscribes and disconnects.
    public var stopWrites: [MemoryWrite] { [] }

    /// None: the clock is read from ``clockUUID``.
    public var readClockWrites: [MemoryWrite] { [] }

    /// The time to ``clockUUID``, four bytes (the LYWSD02's fifth, its display's zone, UTC), as a request.
    public func setClockWrites(to unixTime: UInt32) -> [MemoryWrite] { setClockWrites(to: unixTime, utcOffset: 0) }

    /// The time to ``clockUUID`` as a request; the LYWSD02 gets its display's zone, whole
    /// hours ahead of UTC (int8, as h4/lywsd02 writes it).
    public func setClockWrites(to unixTime: UInt32, utcOffset: Int) -> [MemoryWrite] {
        var value = Self.littleEndian32(unixTime)
        if model == .lywsd02 { value.append(UInt8(bitPattern: Int8(clamping: utcOffset / 3600))) }
        return [MemoryWrite(characteristic: Self.clockUUID, value: value, withResponse: true)]
    }

    /// The clock: four bytes, or five with the LYWSD02's time-zone hour (not used).
    public func parseClockRead(_ value: [UInt8]) throws(SensorMemoryError) -> SensorClockReading {
        guard value.count >= 4 else {
            throw SensorMemoryError(.truncated, raw: value, detail: "\(value.count) bytes, the clock has 4 or 5")
        }
        guard value.count <= 5 else {
            throw SensorMemoryError(.oversized, raw: value, detail: "\(value.count) bytes, the clock has 4 or 5")
        }
        return SensorClockReading(deviceTime: UInt32(value.unsignedLittleEndian(at: 0, count: 4)))
    }

    /// A record notification.
    public func parse(_ value: [UInt8]) throws(SensorMemoryError) -> MemoryNotification {
        try SensorMemoryError.requireLength(value, Self.recordLength, of: "a record")
        let time = UInt32(value.unsignedLittleEndian(at: 4, count: 4))
        if time == 0xFFFF_FFFF {
            throw SensorMemoryError(.erasedRecord, raw: value, detail: "time 0xffffffff: erased flash")
        }
        let (highest, lowest) = (value.signedLittleEndian(at: 8, count: 2), value.signedLittleEndian(at: 11, count: 2))
        guard lowest <= highest else {
            throw SensorMemoryError(
                .impossibleValue, raw: value,
                detail: "lowest \(lowest) above highest \(highest) (1/\(temperatureSteps) °C)")
        }
        var builder = QuantitiesBuilder(profile: family.id, raw: value)
        do {
            // The midpoints: in the record's units doubled, and whole percents doubled.
            try builder.add(.temperature, highest + lowest, per: 2 * temperatureSteps)
            try builder.add(.humidity, Int(value[10]) + Int(value[13]), per: 2)
        } catch {
            throw SensorMemoryError(.impossibleValue, raw: value, detail: error.detail ?? "\(error.kind)")
        }
        return .record(
            SensorMemoryRecord(
                number: UInt32(value.unsignedLittleEndian(at: 0, count: 4)), deviceTime: time,
                measurement: builder.measurement(), dropped: builder.dropped))
    }

    static func uuid(_ prefix: String) -> BluetoothUUID {
        BluetoothUUID(prefix + "-7a0a-4b0c-8a1a-6ff2997da3a6")!
    }

    private static func littleEndian32(_ value: UInt32) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }
}

/// The stock firmware's live value over GATT, no bind key needed: service ebe0ccb0,
/// characteristic `ebe0ccc1` (read, notify), int16 temperature × 0.01 °C, uint8 humidity %,
/// then (LYWSD03MMC, MHO-C401) uint16 battery mV; the LYWSD02 sends the first 3 bytes.
///
/// Not found by its service (``isFoundByService``): BlueZ lists a device's GATT services
/// once connected, so every stock sensor would look like a GATT thermometer after its first
/// memory download and blectld would hold a link to it (a coin cell's battery). It is
/// followed on the devices configured for it, `gatt_live ADDRESS = yes`
/// (docs/sensor-memory.md, "Xiaomi stock firmware").
public struct XiaomiStockGATTProfile: ThermometerProfile {
    /// The live value's characteristic.
    public static let liveUUID = XiaomiStockMemory.uuid("ebe0ccc1")

    /// The family: Xiaomi's stock firmware read over GATT.
    public static let family = SensorFamily(
        id: "xiaomi-gatt", name: "Xiaomi stock firmware (GATT)", manufacturer: "Xiaomi",
        models: ["LYWSD03MMC", "MHO-C401", "LYWSD02"], quantities: [.temperature, .humidity, .voltage])
    /// The data service.
    public let serviceUUIDs = [XiaomiStockMemory.serviceUUID]
    /// The live value.
    public let temperatureCharacteristicUUIDs = [Self.liveUUID]

    /// Creates the profile.
    public init() {}

    /// Only on devices configured for it.
    public var isFoundByService: Bool { false }

    /// Decodes a live value: 5 bytes, or the LYWSD02's 3.
    public func decode(_ value: [UInt8]) -> Result<Measurement, ReadingError> {
        if let error = ReadingLimits.checkLength(value) { return .failure(error) }
        guard value.count == 3 || value.count == 5 else {
            return .failure(ReadingError(.malformed, raw: value, detail: "expected 5 or 3 bytes, got \(value.count)"))
        }
        var builder = QuantitiesBuilder(profile: id, raw: value)
        do {
            try builder.add(.temperature, value.signedLittleEndian(at: 0, count: 2), per: 100)
            try builder.add(.humidity, Int(value[2]))
            if value.count == 5 { try builder.add(.voltage, value.unsignedLittleEndian(at: 3, count: 2), per: 1000) }
        } catch {
            return .failure(error)
        }
        return .success(builder.measurement())
    }
}
