/// A setting of a sensor's clock, for the records it stamped before.
public struct SensorClockSetting: Sendable, Equatable {
    /// The time the clock was set to (the gateway's then): records stamped before it were
    /// stamped with the clock as it was before.
    public var until: UInt32
    /// The drift before the setting (sensor time minus gateway time), in seconds.
    public var drift: Int64
    /// Where the sensor numbers its records upward (Xiaomi's stock firmware), the next
    /// number at the setting: the first record made after it.
    public var firstNumberAfter: UInt32?

    /// A drift this small (seconds) is the measurement's own error: the clock was right.
    public static let negligibleDrift: Int64 = 2

    /// A setting to `until`, `drift` seconds off before.
    public init(until: UInt32, drift: Int64, firstNumberAfter: UInt32? = nil) {
        self.until = until
        self.drift = drift
        self.firstNumberAfter = firstNumberAfter
    }
}

/// How a sensor's clock relates to the gateway's: the drift (sensor time minus gateway time)
/// measured now, and the one in force before the clock was last set, for records stamped
/// before that.
public struct SensorClockMap: Sendable, Equatable {
    /// The drift now, in seconds.
    public var drift: Int64
    /// The clock's last setting: records made before it keep its earlier drift.
    public var earlier: SensorClockSetting?

    /// A map with the drift now and, if the clock was set since those records, the setting.
    public init(drift: Int64, earlier: SensorClockSetting? = nil) {
        self.drift = drift
        self.earlier = earlier
    }

    /// Whether the records of a newest-first download have gone back past the setting.
    private var pastSetting = false
    /// The stamp of the record before (newer), in a newest-first download.
    private var newer: UInt32?

    /// The gateway's time (seconds since 1970) of a record stamped `deviceTime`, by its stamp
    /// and, where the sensor numbers records upward, its `number`.
    ///
    /// A stamp before the setting is the earlier clock's. A clock that was ahead also stamped
    /// its last records before the setting after the time it was set to: where its earlier
    /// time would place the record before the setting, the number tells (the sensor's next
    /// number at the setting); without one the stamp rules (see ``gatewayTime(ofNext:)`` for
    /// the order of a newest-first download). Found on real BlueZ (e2e scenario 10s).
    public func gatewayTime(of deviceTime: UInt32, number: UInt32? = nil) -> Int64 {
        guard let earlier else { return Int64(deviceTime) - drift }
        let before: Bool
        if deviceTime < earlier.until {
            before = true
        } else if let first = earlier.firstNumberAfter, let number,
            Int64(deviceTime) - earlier.drift <= Int64(earlier.until)
        {
            before = number < first
        } else {
            before = false
        }
        return Int64(deviceTime) - (before ? earlier.drift : drift)
    }

    /// The gateway's time of the next record of a download that comes newest first.
    ///
    /// A clock that was ahead stamped its last records before the setting *after* the time it
    /// was set to, so a stamp cannot tell them from records made since. Their order can: going
    /// back in time, the stamps fall, and rise only where the clock was set back; from there on
    /// (or from the first stamp before the setting) the earlier drift applies. Found on real
    /// BlueZ (e2e scenario 10, a sensor 300 s ahead): records from before the setting were
    /// placed 300 s late, in the future.
    public mutating func gatewayTime(ofNext deviceTime: UInt32) -> Int64 {
        defer { newer = deviceTime }
        guard let earlier else { return Int64(deviceTime) - drift }
        if !pastSetting, deviceTime < earlier.until || newer.map({ deviceTime > $0 }) == true { pastSetting = true }
        return Int64(deviceTime) - (pastSetting ? earlier.drift : drift)
    }

    /// The sensor's time of the gateway's `time`, clamped to the clock's range.
    public func deviceTime(of time: Int64) -> UInt32 {
        var device = time + drift
        if let earlier, device < Int64(earlier.until) { device = time + earlier.drift }
        return UInt32(clamping: max(0, device))
    }

    /// Maps are equal when their drifts and settings are.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.drift == rhs.drift && lhs.earlier == rhs.earlier
    }
}
