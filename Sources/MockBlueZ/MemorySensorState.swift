import Glibc

/// One record of a memory sensor: `memo_blk_t`'s fields.
struct MemoryRecord: Sendable, Equatable {
    var time: UInt32
    var centiCelsius: Int
    var centiHumidity: Int
    var millivolts: Int

    /// The stock firmware's record at `index`: the index, the time, the hour's highest
    /// temperature (0.1 °C; the LYWSD02's 0.01 °C) and humidity (%), its lowest; 0.3 °C and
    /// 1 % either side.
    func stockBytes(index: UInt32, hundredths: Bool = false) -> [UInt8] {
        let (units, spread, percent) =
            hundredths ? (centiCelsius, 30, centiHumidity / 100) : (centiCelsius / 10, 3, centiHumidity / 100)
        return littleEndianBytes(Int(index), 4) + littleEndianBytes(Int(time), 4)
            + littleEndianBytes(units + spread, 2) + [UInt8(clamping: percent + 1)]
            + littleEndianBytes(units - spread, 2) + [UInt8(clamping: percent - 1)]
    }

    /// The 10 bytes of `memo_blk_t`, little-endian.
    var bytes: [UInt8] {
        littleEndianBytes(Int(time), 4) + littleEndianBytes(centiCelsius, 2) + littleEndianBytes(centiHumidity, 2)
            + littleEndianBytes(millivolts, 2)
    }
}

/// Faults armed on one memory sensor.
struct MemorySensorFaults: Sendable, Equatable {
    var disconnectAfter: Int?
    var corruptRecord: Int?
    var refusedClockWrites = 0
}

/// A memory sensor as it runs: its clock and its ring of records, brought up to date lazily
/// (``catchUp(to:)``) so it records while nobody looks, scanning or not.
struct MemorySensorState: Sendable {
    let spec: MockSensorMemory
    let startCelsius: Double
    /// The clock read `clockSeconds` at `clockSetAt`; it runs with the monotonic clock.
    private var clockSeconds: Int64
    private var clockSetAt: ContinuousClock.Instant
    /// The time last written to the clock (`utc_set_time_sec`), 0 before any write.
    private(set) var lastSetTime: UInt32 = 0
    /// Oldest first; at most ``MockSensorMemory/capacity``.
    private(set) var records: [MemoryRecord] = []
    private var closedSectors = 0
    private var nextRecordAt: ContinuousClock.Instant
    /// Records measured since the start (negative for preloaded ones): what the values follow.
    private var measured = 0
    /// Records written since the memory was new: the stock firmware's next index.
    private(set) var written = 0
    /// The index the stock firmware sends records from (`ebe0ccba`).
    var sendFrom: UInt32 = 0
    var faults = MemorySensorFaults()
    /// The last value notified on the command characteristic (what a read returns).
    var lastAnswer: [UInt8] = []

    init(_ spec: MockSensorMemory, startCelsius: Double, now: ContinuousClock.Instant = .now) {
        self.spec = spec
        self.startCelsius = startCelsius
        clockSeconds = Self.unixNow() + spec.clockDrift
        clockSetAt = now
        nextRecordAt = now + spec.interval
        let step = Int64(spec.interval.components.seconds)
        var last = clockSeconds
        if spec.isXiaomiStock, step > 0 {
            // The stock firmware writes at the whole intervals (hours) of its clock.
            last = clockSeconds / step * step
            nextRecordAt = now + .seconds(last + step - clockSeconds)
        }
        for back in stride(from: spec.preloaded, to: 0, by: -1) {
            let time = spec.isXiaomiStock ? last - Int64(back - 1) * step : clockSeconds - Int64(back) * step
            append(values(of: -back, time: time))
        }
    }

    /// The stock firmware's index of the record at `position` in ``records``.
    func index(at position: Int) -> UInt32 { UInt32(truncatingIfNeeded: written - records.count + position) }

    /// The sensor's clock at `instant`, as its 32-bit counter holds it.
    func time(at instant: ContinuousClock.Instant = .now) -> UInt32 {
        UInt32(truncatingIfNeeded: clockSeconds + (instant - clockSetAt).components.seconds)
    }

    /// Writes every record due by `now`.
    mutating func catchUp(to now: ContinuousClock.Instant = .now) {
        while nextRecordAt <= now {
            append(values(of: measured, time: Int64(time(at: nextRecordAt))))
            measured += 1
            nextRecordAt += spec.interval
        }
    }

    /// A download starts: the memory brought up to date, and the faults armed for it, taken
    /// (a disconnect after N records and an erased record hit one download only).
    mutating func startDownload(now: ContinuousClock.Instant = .now) -> MemorySensorFaults {
        catchUp(to: now)
        let armed = faults
        faults.disconnectAfter = nil
        faults.corruptRecord = nil
        return armed
    }

    /// Record `number`, 1 being the newest (`get_memo`).
    func record(number: Int) -> MemoryRecord? {
        guard number >= 1, number <= records.count else { return nil }
        return records[records.count - number]
    }

    /// `23 tt…`: the firmware copies up to 4 bytes over its clock, low byte first.
    mutating func setClock(bytes: [UInt8], now: ContinuousClock.Instant = .now) {
        catchUp(to: now)
        var value = time(at: now)
        for (index, byte) in bytes.prefix(4).enumerated() {
            value = value & ~(0xFF << (8 * UInt32(index))) | UInt32(byte) << (8 * UInt32(index))
        }
        clockSeconds = Int64(value)
        clockSetAt = now
        lastSetTime = value
    }

    /// The clock set to `time` whole (a clock written as a date: ThermoPro's).
    mutating func setClock(to time: UInt32, now: ContinuousClock.Instant = .now) {
        catchUp(to: now)
        clockSeconds = Int64(time)
        clockSetAt = now
        lastSetTime = time
    }

    /// A restart: memory cleared (as `CMD_ID_CLRLOG` leaves it) and, with it empty, the
    /// clock from 0 (`memo_init`).
    mutating func reset(now: ContinuousClock.Instant = .now) {
        clear(now: now)
        written = 0
        sendFrom = 0
        clockSeconds = 0
        clockSetAt = now
        lastSetTime = 0
    }

    /// Every record erased; the next one comes an interval from now.
    mutating func clear(now: ContinuousClock.Instant = .now) {
        catchUp(to: now)
        records = []
        closedSectors = 0
        nextRecordAt = now + spec.interval
    }

    /// Appends to the open sector; a full sector closes and the next is erased, which drops
    /// the oldest sector's records once every sector is in use (`memo_sec_close`).
    private mutating func append(_ record: MemoryRecord) {
        records.append(record)
        written += 1
        guard records.count - closedSectors * spec.recordsPerSector == spec.recordsPerSector else { return }
        closedSectors += 1
        if closedSectors > spec.sectors - 1 {
            records.removeFirst(spec.recordsPerSector)
            closedSectors -= 1
        }
    }

    /// Record `index`'s values: a slow triangle, so consecutive records differ and repeat.
    private func values(of index: Int, time: Int64) -> MemoryRecord {
        let phase = ((index % 48) + 48) % 48
        let step = phase < 24 ? phase : 48 - phase
        return MemoryRecord(
            time: UInt32(truncatingIfNeeded: time), centiCelsius: Int((startCelsius * 100).rounded()) - 120 + 10 * step,
            centiHumidity: 4500 + 25 * step, millivolts: 2950 + step)
    }

    /// The gateway's wall clock, seconds since 1970.
    private static func unixNow() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec)
    }
}

/// `value` in `count` bytes, least significant first.
func littleEndianBytes(_ value: Int, _ count: Int) -> [UInt8] {
    (0..<count).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
}
