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

    /// The gateway's time (seconds since 1970) of a record stamped `deviceTime`.
    public func gatewayTime(of deviceTime: UInt32) -> Int64 {
        if let earlier, deviceTime < earlier.until { return Int64(deviceTime) - earlier.drift }
        return Int64(deviceTime) - drift
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
