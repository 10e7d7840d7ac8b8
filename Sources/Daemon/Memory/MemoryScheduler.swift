import BlectlProtocol
import SensorModel

/// When each memory-capable sensor's memory is read: after a gap in its live readings longer
/// than `sensor_memory_after`, at most once per `sensor_memory_interval` (an interrupted
/// download sooner, after `retryAfter`), one download at a time per sensor; and when a
/// sensor heard without gaps has gone a day without its clock set, a visit for the clock
/// alone. Pure: times come in.
struct MemoryScheduler {
    /// A download to start.
    struct Download: Equatable {
        /// Records measured after this (gateway seconds since 1970).
        var since: Int64
        /// Records an interrupted download already brought.
        var skipping: Int
        /// Whether the clock is due to be set.
        var setClock: Bool
        /// A visit for the clock alone: no gap to fill, the clock a day or more unset.
        var clockOnly = false

        /// The daily visit of a sensor whose clock no download has set for a day.
        static let clockVisit = Download(since: 0, skipping: 0, setClock: true, clockOnly: true)
    }

    struct Sensor {
        /// The newest live reading's time.
        var lastLive: Timestamp?
        /// The gap to fill: records after this (seconds), and what an interrupted download brought.
        var pending: (since: Int64, skipping: Int)?
        var running = false
        var lastStart: Timestamp?
        var lastInterrupted = false
        /// When a clock setting was last tried.
        var clockTried: Timestamp?
        /// The first live reading since start: the day of a clock never tried counts from it.
        var firstHeard: Timestamp?
    }

    let settings: SensorMemorySettings
    private(set) var sensors: [BluetoothAddress: Sensor] = [:]

    init(settings: SensorMemorySettings) { self.settings = settings }

    /// Whether the sensor has been seen since start (its previous reading looked up).
    func knows(_ address: BluetoothAddress) -> Bool { sensors[address]?.lastLive != nil }

    /// A live reading at `time`; `previous` is the one before it, from the history for the
    /// first reading since start. Returns the download to start now, if one is due. A sensor
    /// that keeps a clock but no records (`fillsGaps` false) gets clock visits alone, the
    /// first when it is first heard: nothing else ever connects to it.
    mutating func heard(
        _ address: BluetoothAddress, at time: Timestamp, previous: Timestamp? = nil, fillsGaps: Bool = true
    ) -> Download? {
        var sensor = sensors[address] ?? Sensor()
        let before = sensor.lastLive ?? previous
        if fillsGaps, let before, time.duration(since: before) > settings.after, sensor.pending == nil {
            sensor.pending = (before.millisecondsSince1970 / 1000, 0)
        }
        sensor.lastLive = max(time, sensor.lastLive ?? time)
        sensor.firstHeard = sensor.firstHeard ?? time
        defer { sensors[address] = sensor }
        guard !sensor.running else { return nil }
        guard let pending = sensor.pending else {
            guard clockVisitDue(sensor, address, at: time, firstAtOnce: !fillsGaps) else { return nil }
            sensor.clockTried = time
            sensor.running = true
            return .clockVisit
        }
        guard isAllowed(sensor, at: time) else { return nil }
        sensor.running = true
        sensor.lastStart = time
        let setClock = clockDue(&sensor, address, at: time)
        return Download(since: pending.since, skipping: pending.skipping, setClock: setClock)
    }

    /// Whether a sensor with no gap pending is due a visit for its clock: `sensor_clock_sync`
    /// on for it, and a day since the clock was last tried; never tried since start, a day
    /// since it was first heard (a restart does not cost a memory sensor a connection), or
    /// at once with `firstAtOnce` (a clock alone: no download will ever set it).
    private func clockVisitDue(
        _ sensor: Sensor, _ address: BluetoothAddress, at time: Timestamp, firstAtOnce: Bool
    ) -> Bool {
        guard settings.setsClock(of: address) else { return false }
        guard let since = sensor.clockTried ?? (firstAtOnce ? nil : sensor.firstHeard) else { return firstAtOnce }
        return time.duration(since: since) >= settings.clockInterval
    }

    /// A clock visit ended, whatever came of it: the next is a day after its start.
    mutating func clockVisitEnded(_ address: BluetoothAddress) {
        sensors[address]?.running = false
    }

    /// A connection to a device keeping a clock of its own (the Current Time Service) at
    /// `time`: whether to set it, by the rule of the downloads' clock (the first connection
    /// since start, then a day after the last try).
    mutating func clockDue(_ address: BluetoothAddress, at time: Timestamp) -> Bool {
        var sensor = sensors[address] ?? Sensor()
        defer { sensors[address] = sensor }
        return clockDue(&sensor, address, at: time)
    }

    /// Whether the sensor's clock is due at `time` under its `sensor_clock_sync`; a due one counts as tried.
    private func clockDue(_ sensor: inout Sensor, _ address: BluetoothAddress, at time: Timestamp) -> Bool {
        let due =
            settings.setsClock(of: address)
            && sensor.clockTried.map { time.duration(since: $0) >= settings.clockInterval } ?? true
        if due { sensor.clockTried = time }
        return due
    }

    /// A download asked for at `time` (`memory_download`): of the gap pending, else of every
    /// record since `lookback`; the clock set whenever `sensor_clock_sync` allows. It counts
    /// as the interval's download. Nil while one runs.
    mutating func requested(_ address: BluetoothAddress, at time: Timestamp) -> Download? {
        var sensor = sensors[address] ?? Sensor()
        guard !sensor.running else { return nil }
        let lookback = Int64(settings.lookback.components.seconds)
        let pending = sensor.pending ?? (time.millisecondsSince1970 / 1000 - lookback, 0)
        sensor.pending = pending
        sensor.running = true
        sensor.lastStart = time
        let setClock = settings.setsClock(of: address)
        if setClock { sensor.clockTried = time }
        sensors[address] = sensor
        return Download(since: pending.since, skipping: pending.skipping, setClock: setClock)
    }

    /// A download ended: interrupted, it stays pending, to skip the records it brought.
    mutating func finished(_ address: BluetoothAddress, interrupted: Bool, lastNumber: Int, failed: Bool) {
        guard var sensor = sensors[address] else { return }
        sensor.running = false
        sensor.lastInterrupted = interrupted || failed
        if interrupted, let pending = sensor.pending {
            sensor.pending = (pending.since, max(pending.skipping, lastNumber))
        } else if !failed {
            sensor.pending = nil
        }
        sensors[address] = sensor
    }

    private func isAllowed(_ sensor: Sensor, at time: Timestamp) -> Bool {
        guard let last = sensor.lastStart else { return true }
        let wait = sensor.lastInterrupted ? min(settings.retryAfter, settings.interval) : settings.interval
        return time.duration(since: last) >= wait
    }
}
