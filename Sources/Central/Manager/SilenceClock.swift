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
    /// Whether our discovery is on (a stretch runs).
    private var discovering = false
    /// When the current stretch of silent discovery began; meaningful while `discovering`.
    /// Not an optional: `ContinuousClock.Instant` is resilient, and checking an optional of
    /// it for nil copied it through value witnesses three times per notification (about
    /// 350 instructions; callgrind, docs/benchmarks-log.md item 26).
    private var stretchStart = ContinuousClock.Instant.now
    /// Silent discovery time of earlier stretches (before discovery last went off).
    private var banked: Duration = .zero

    /// Something was heard from a device.
    mutating func heard() {
        heardAny = true
        banked = .zero
        if discovering { stretchStart = .now }
    }

    /// Our discovery went on or off.
    mutating func discovery(_ on: Bool, at now: ContinuousClock.Instant) {
        if on {
            if !discovering { stretchStart = now }
        } else if discovering {
            banked += now - stretchStart
        }
        discovering = on
    }

    /// Starts counting from zero (after a recovery step: its effect is measured afresh).
    mutating func restart(at now: ContinuousClock.Instant) {
        banked = .zero
        if discovering { stretchStart = now }
    }

    /// Discovery time without a sound so far.
    func silentDiscovery(at now: ContinuousClock.Instant) -> Duration {
        banked + (discovering ? now - stretchStart : .zero)
    }
}
