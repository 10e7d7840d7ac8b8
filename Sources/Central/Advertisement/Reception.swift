/// How a sensor's missed measurements are known: by its own counter, or by its advertising
/// interval when it has no counter.
public enum ReceptionBasis: String, Sendable, Equatable {
    /// Gaps in the sensor's counter (BTHome packet id, pvvx, ATC1441, MiBeacon, Ruuvi).
    case counter
    /// Advertisements expected by the learned interval and not heard (Govee, Qingping, …).
    case interval
}

/// What one sensor sent and what of it was heard: received and missed since it was first
/// heard, and over the last hour.
///
/// Fixed size: two counts, the measurement period learned from the counter, and a ring of
/// twelve five-minute buckets for the sliding hour; changed in place for every measurement.
struct Reception {
    /// How the misses are known; nil until the sensor's first reading says.
    private(set) var basis: ReceptionBasis?
    /// Measurements (counter) or advertisements (interval) heard.
    private(set) var received = 0
    /// Measurements (counter) or advertisements (interval) the sensor sent and nobody heard.
    private(set) var missed = 0
    /// The shortest time seen between two consecutive measurements (a counter step of one).
    private(set) var measurementPeriod: Duration?
    /// When the last new measurement was heard.
    private var lastMeasurement: ContinuousClock.Instant?
    private var hour: HourWindow

    init(at now: ContinuousClock.Instant) {
        hour = HourWindow(origin: now)
    }

    /// The received and missed counts of the last hour (in five-minute buckets: 55 to 60 minutes).
    func lastHour(at now: ContinuousClock.Instant) -> (received: Int, missed: Int) {
        hour.totals(at: now)
    }

    /// Counts the first measurement (or advertisement) of a sensor, or the first after it
    /// changed its format or came back from being lost: nothing is known missed.
    mutating func first(by basis: ReceptionBasis, at now: ContinuousClock.Instant) {
        // An advertisement of a sensor counted by interval is counted when heard.
        if basis == .counter || self.basis != .interval { count(received: 1, missed: 0, at: now) }
        self.basis = basis
        lastMeasurement = now
    }

    /// Counts a new measurement whose counter moved on by `step`; returns how many were missed.
    ///
    /// A step of more than half the counter's range is a counter that went back, and so is a
    /// step the time since the last measurement cannot hold (more measurements than the
    /// sensor's period fits in it): the sensor restarted, nothing is known missed. That tells
    /// a one-byte counter's restart from 200 to 3 from a wrap, which the counter alone cannot.
    mutating func measured(step: UInt64, modulus: UInt64, at now: ContinuousClock.Instant) -> Int {
        let elapsed = lastMeasurement.map { now - $0 } ?? .zero
        let missed = Self.missed(step: step, modulus: modulus, elapsed: elapsed, period: measurementPeriod)
        if step == 1, lastMeasurement != nil, elapsed >= Self.shortestGap {
            measurementPeriod = min(measurementPeriod ?? elapsed, elapsed)
        }
        lastMeasurement = now
        count(received: 1, missed: missed, at: now)
        return missed
    }

    /// Counts an advertisement of a sensor counted by interval, heard `gap` after the one
    /// before (nil: the first since it was lost); `interval` is its learned advertising
    /// interval (nil: not learned yet).
    mutating func advertised(gap: Duration?, interval: Duration?, at now: ContinuousClock.Instant) {
        guard let gap else { return count(received: 1, missed: 0, at: now) }
        // The same advertising event reported twice (its advertisement and its scan response).
        guard gap >= Self.shortestGap else { return }
        count(received: 1, missed: interval.map { Self.missed(gap: gap, interval: $0) } ?? 0, at: now)
    }

    private mutating func count(received: Int, missed: Int, at now: ContinuousClock.Instant) {
        self.received += received
        self.missed += missed
        hour.add(received: received, missed: missed, at: now)
    }

    /// Shorter than Bluetooth's shortest advertising interval (20 ms): not two advertisements.
    static let shortestGap: Duration = .milliseconds(15)

    /// Measurements missed when a counter of `modulus` values moved on by `step` (at least 1)
    /// in `elapsed`, by a sensor that measures every `period` at the fastest (nil: not known).
    static func missed(step: UInt64, modulus: UInt64, elapsed: Duration, period: Duration?) -> Int {
        guard step > 1, step <= modulus / 2 else { return 0 }
        if let period, period > .zero {
            // Room for jitter: a quarter more steps than the period fits, and one.
            let fits = elapsed / period * 1.25 + 1
            guard Double(step) <= fits else { return 0 }
        }
        return Int(step - 1)
    }

    /// Advertisements missed in a gap of `gap` between two heard, at one every `interval`.
    static func missed(gap: Duration, interval: Duration) -> Int {
        guard interval >= shortestGap else { return 0 }
        return max(0, Int((gap / interval).rounded()) - 1)
    }

    /// The advertising interval of a sensor whose recent gaps (milliseconds; 0 for none yet)
    /// are `gaps`: the mean of those near the shortest (within half of it more), so that gaps
    /// of two or three intervals (missed advertisements) do not count; nil with fewer than
    /// three gaps.
    static func interval(_ gaps: InlineArray<16, UInt32>) -> Duration? {
        let floor = UInt32(shortestGap.components.attoseconds / 1_000_000_000_000_000)
        var shortest = UInt32.max
        var known = 0
        for index in gaps.indices where gaps[index] >= floor {
            shortest = min(shortest, gaps[index])
            known += 1
        }
        guard known >= 3 else { return nil }
        var sum: UInt64 = 0
        var near: UInt64 = 0
        for index in gaps.indices where gaps[index] >= shortest && gaps[index] < shortest + shortest / 2 {
            sum += UInt64(gaps[index])
            near += 1
        }
        return .milliseconds(Int64(sum / near))
    }
}

/// Received and missed counts over a sliding hour: twelve buckets of five minutes in a ring.
struct HourWindow {
    static let buckets = 12
    static let width: Int64 = 300

    private let origin: ContinuousClock.Instant
    private var received = InlineArray<12, UInt32>(repeating: 0)
    private var missed = InlineArray<12, UInt32>(repeating: 0)
    /// The number of the newest bucket, in buckets since `origin`.
    private var newest: Int64 = 0

    init(origin: ContinuousClock.Instant) {
        self.origin = origin
    }

    private func bucket(_ now: ContinuousClock.Instant) -> Int64 {
        max(0, (now - origin).components.seconds) / Self.width
    }

    mutating func add(received: Int, missed: Int, at now: ContinuousClock.Instant) {
        let number = max(newest, bucket(now))
        if number > newest {
            // The buckets passed since are an hour old: emptied for reuse (at most all twelve).
            var next = newest + 1
            while next <= number, next <= newest + Int64(Self.buckets) {
                let slot = Int(next % Int64(Self.buckets))
                self.received[slot] = 0
                self.missed[slot] = 0
                next += 1
            }
            newest = number
        }
        let slot = Int(number % Int64(Self.buckets))
        self.received[slot] = self.received[slot] &+ UInt32(clamping: received)
        self.missed[slot] = self.missed[slot] &+ UInt32(clamping: missed)
    }

    func totals(at now: ContinuousClock.Instant) -> (received: Int, missed: Int) {
        let current = max(newest, bucket(now))
        var totals = (received: 0, missed: 0)
        var number = max(0, current - Int64(Self.buckets) + 1)
        while number <= newest {
            let slot = Int(number % Int64(Self.buckets))
            totals.received += Int(received[slot])
            totals.missed += Int(missed[slot])
            number += 1
        }
        return totals
    }
}
