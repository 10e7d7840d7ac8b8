import Glibc

/// A Pi thermometer's Current Time Service (0x1805 / 0x2A2B), as the options ask for it.
public struct MockCurrentTime: Sendable, Equatable {
    /// Seconds the clock is ahead of the gateway's wall clock, as local time, at the start
    /// (negative: behind).
    public var offset: Int64
    /// How fast it drifts: millionths of a second gained per second (negative: lost).
    public var ratePPM: Int64
    /// The first writes refused (`NotPermitted`, as a write to a protected characteristic).
    public var refusedWrites: Int

    /// A clock `offset` seconds off, drifting `ratePPM`, refusing the first `refusedWrites` writes.
    public init(offset: Int64 = 0, ratePPM: Int64 = 0, refusedWrites: Int = 0) {
        self.offset = offset
        self.ratePPM = ratePPM
        self.refusedWrites = refusedWrites
    }
}

/// The clock behind a mock's Current Time characteristic: it runs with the monotonic clock at
/// its own rate from the last setting, and reads and takes the 10-byte Exact Time 256 +
/// Adjust Reason value (the calendar worked out here on its own, not with blectl's codec).
/// Its time is local, as the specification says: a clock set right shows this machine's
/// local time (`TZ`). Its Local Time Information (0x2A0F) is kept as written.
struct CurrentTimeClock: Sendable {
    let spec: MockCurrentTime
    /// Seconds since 1970 of the civil time the clock read at `setAt`.
    private var seconds: Double
    private var setAt: ContinuousClock.Instant
    /// Writes still to refuse.
    private(set) var refusalsLeft: Int
    /// The last value written, for tests and the log.
    private(set) var lastWritten: [UInt8]?
    /// Local Time Information: the zone and DST codes (unknown until written).
    private(set) var localTimeInformation: [UInt8] = [0x80, 0xFF]

    init(_ spec: MockCurrentTime, now: ContinuousClock.Instant = .now) {
        self.spec = spec
        var wall = timespec()
        clock_gettime(CLOCK_REALTIME, &wall)
        var local = tm()
        let offset = localtime_r(&wall.tv_sec, &local) != nil ? local.tm_gmtoff : 0
        seconds = Double(wall.tv_sec + offset) + Double(wall.tv_nsec) / 1e9 + Double(spec.offset)
        setAt = now
        refusalsLeft = spec.refusedWrites
    }

    /// A write of Local Time Information: 2 bytes, the zone within -48…56 or unknown.
    mutating func writeLocalTimeInformation(_ value: [UInt8]) throws {
        guard value.count == 2 else { throw BluetoothdError.invalidArguments("Invalid Length") }
        let zone = Int8(bitPattern: value[0])
        guard zone == -128 || (-48...56).contains(zone), [0, 2, 4, 8, 255].contains(value[1]) else {
            throw BluetoothdError.invalidArguments("Value out of range")
        }
        localTimeInformation = value
    }

    /// The device's time now, seconds since 1970.
    func time(at now: ContinuousClock.Instant = .now) -> Double {
        let (whole, atto) = (now - setAt).components
        let elapsed = Double(whole) + Double(atto) / 1e18
        return seconds + elapsed * (1 + Double(spec.ratePPM) / 1e6)
    }

    /// A read: the 10 bytes of the time now (adjust reason 0).
    func read(at now: ContinuousClock.Instant = .now) -> [UInt8] {
        let time = time(at: now)
        var days = Int(time.rounded(.down) / 86_400)
        let second = Int(time.rounded(.down)) - days * 86_400
        let weekday = (days + 3) % 7 + 1  // 1970-01-01 was a Thursday
        var year = 1970
        while days >= Self.daysIn(year) {
            days -= Self.daysIn(year)
            year += 1
        }
        var month = 1
        while days >= Self.daysIn(month, of: year) {
            days -= Self.daysIn(month, of: year)
            month += 1
        }
        let fraction = Int((time - time.rounded(.down)) * 256)
        return [
            UInt8(year & 0xFF), UInt8(year >> 8), UInt8(month), UInt8(days + 1), UInt8(second / 3600),
            UInt8(second / 60 % 60), UInt8(second % 60), UInt8(weekday), UInt8(min(fraction, 255)), 0,
        ]
    }

    /// A write: refused while refusals are left; else a 10-byte value sets the clock.
    mutating func write(_ value: [UInt8], now: ContinuousClock.Instant = .now) throws {
        if refusalsLeft > 0 {
            refusalsLeft -= 1
            throw BluetoothdError.notPermitted("Not paired")
        }
        guard value.count == 10 else { throw BluetoothdError.invalidArguments("Invalid Length") }
        let year = Int(value[0]) | Int(value[1]) << 8
        let (month, day) = (Int(value[2]), Int(value[3]))
        guard year >= 1970, (1...12).contains(month), day >= 1, day <= Self.daysIn(month, of: year),
            value[4] < 24, value[5] < 60, value[6] < 60
        else { throw BluetoothdError.invalidArguments("Value out of range") }
        var days = (1970..<year).reduce(0) { $0 + Self.daysIn($1) }
        days += (1..<month).reduce(0) { $0 + Self.daysIn($1, of: year) } + day - 1
        seconds =
            Double(days * 86_400 + Int(value[4]) * 3600 + Int(value[5]) * 60 + Int(value[6])) + Double(value[8]) / 256
        setAt = now
        lastWritten = value
    }

    private static func isLeap(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }
    private static func daysIn(_ year: Int) -> Int { isLeap(year) ? 366 : 365 }
    private static func daysIn(_ month: Int, of year: Int) -> Int {
        switch month {
        case 2: isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
