/// How long our discovery has run without hearing anything from any device: the measure of
/// the scan watchdog.
///
/// Only time with discovery on counts (the monitor scans in windows), and anything heard —
/// an advertisement, a new device, a link coming up, a characteristic value — starts it
/// again from zero. It runs for every notification: while discovery is off (most of the
/// time, once every thermometer streams) a sound costs two stores and no clock read.
struct SilenceClock {
    /// Whether anything was heard from a device yet.
    private(set) var heardAny = false
    /// When the current stretch of silent discovery began; nil while discovery is off.
    private var stretchStart: ContinuousClock.Instant?
    /// Silent discovery time of earlier stretches (before discovery last went off).
    private var banked: Duration = .zero

    /// Something was heard from a device.
    mutating func heard() {
        heardAny = true
        banked = .zero
        if stretchStart != nil { stretchStart = .now }
    }

    /// Our discovery went on or off.
    mutating func discovery(_ on: Bool, at now: ContinuousClock.Instant) {
        if on {
            if stretchStart == nil { stretchStart = now }
        } else if let start = stretchStart {
            banked += now - start
            stretchStart = nil
        }
    }

    /// Starts counting from zero (after a recovery step: its effect is measured afresh).
    mutating func restart(at now: ContinuousClock.Instant) {
        banked = .zero
        if stretchStart != nil { stretchStart = now }
    }

    /// Discovery time without a sound so far.
    func silentDiscovery(at now: ContinuousClock.Instant) -> Duration {
        banked + (stretchStart.map { now - $0 } ?? .zero)
    }
}
