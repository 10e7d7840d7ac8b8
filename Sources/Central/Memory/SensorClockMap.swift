/// How a sensor's clock relates to the gateway's: the drift (sensor time minus gateway time)
/// measured now, and the one in force before the clock was last set, for records stamped
/// before that.
public struct SensorClockMap: Sendable, Equatable {
    /// The drift now, in seconds.
    public var drift: Int64
    /// Records stamped before `until` (by the sensor's clock now) were stamped with the
    /// clock as it was before it was set, `drift` seconds off.
    public var earlier: (until: UInt32, drift: Int64)?

    /// A map with the drift now and, if the clock was set since those records, the earlier one.
    public init(drift: Int64, earlier: (until: UInt32, drift: Int64)? = nil) {
        self.drift = drift
        self.earlier = earlier
    }

    /// Whether the records of a newest-first download have gone back past the setting.
    private var pastSetting = false
    /// The stamp of the record before (newer), in a newest-first download.
    private var newer: UInt32?

    /// The gateway's time (seconds since 1970) of a record stamped `deviceTime`, by its stamp
    /// alone: right unless the clock was ahead before it was set (see ``gatewayTime(ofNext:)``).
    public func gatewayTime(of deviceTime: UInt32) -> Int64 {
        if let earlier, deviceTime < earlier.until { return Int64(deviceTime) - earlier.drift }
        return Int64(deviceTime) - drift
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

    /// Maps are equal when their drifts are.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.drift == rhs.drift && lhs.earlier?.until == rhs.earlier?.until && lhs.earlier?.drift == rhs.earlier?.drift
    }
}
