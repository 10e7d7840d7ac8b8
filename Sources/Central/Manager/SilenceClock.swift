/// How long our discovery has run without hearing anything from any device: the measure of
/// the scan watchdog.
///
/// Only time with discovery on counts (the monitor scans in windows), and anything heard —
/// an advertisement, a new device, a link coming up, a characteristic value — starts it
/// again from zero. Updating it is a few stores: it runs for every notification.
struct SilenceClock {
    /// When anything was last heard from a device; nil before the first sound.
    private(set) var lastHeard: ContinuousClock.Instant?
    /// When the current stretch of silent discovery began; nil while discovery is off.
    private var stretchStart: ContinuousClock.Instant?
    /// Silent discovery time of earlier stretches (before discovery last went off).
    private var banked: Duration = .zero

    /// Something was heard from a device.
    mutating func heard(at now: ContinuousClock.Instant) {
        lastHeard = now
        banked = .zero
        if stretchStart != nil { stretchStart = now }
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
