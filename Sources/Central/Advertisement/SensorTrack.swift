import BlueZClient
import SensorModel
import ThermometerProfiles

/// What the advertisement monitor remembers of one sensor: its name, the payloads last
/// heard, its counter, and the gaps between its advertisements.
///
/// A value of fixed small size (the gaps are inline), changed in place for every
/// advertisement.
struct SensorTrack {
    /// What a decoded reading is, against the sensor's last one.
    enum Admission: Equatable {
        /// A new measurement, after `lost` missed ones.
        case new(lost: Int)
        /// The same measurement heard again (the counter did not move).
        case repeated
        /// A new measurement, but within `advert_min_interval` of the last reported.
        case throttled
    }

    var name: String?
    /// The payloads last heard, by field: an unchanged payload is the same advertisement
    /// heard again, not decoded twice. The first field is kept inline: a sensor advertises
    /// one, and its new payload then replaces it without copying an array (the monitor's
    /// table holds the track too while it is changed).
    private var firstPayload: (field: FieldKey, bytes: [UInt8])?
    private var morePayloads: [(field: FieldKey, bytes: [UInt8])] = []
    /// The manufacturer data of the last update, for formats whose company id is data (see
    /// ``manufacturerDataChanges(_:)``); empty for the others.
    private var lastManufacturerData: [UInt16: [UInt8]] = [:]
    /// The profile and counter of the last measurement counted.
    private var last: (profile: ProfileID, counter: UInt32?, authenticated: Bool)?
    /// When the last reading was reported.
    private(set) var lastReading: ContinuousClock.Instant?
    /// When an advertisement was last heard.
    private(set) var lastHeard: ContinuousClock.Instant
    /// The last 16 gaps between advertisements, in milliseconds (a ring).
    private var gaps = InlineArray<16, UInt32>(repeating: 0)
    private var gapIndex = 0
    private(set) var readings = 0
    private(set) var lostPackets = 0
    /// What the sensor sent and what of it was heard (``Reception``).
    private(set) var reception: Reception
    /// Whether the sensor was reported lost (and not heard since).
    private(set) var isLost = false
    /// What each adapter hears of it: the device object's path there (which names the
    /// adapter), the last RSSI and when it last heard the sensor. One entry per adapter.
    private(set) var hearing: [Hearing] = []
    /// The device path of the last advertisement counted (not an echo).
    private var lastPath: BlueZPath?

    /// What one adapter hears of the sensor.
    struct Hearing: Equatable {
        /// The sensor's device object on the adapter.
        let path: BlueZPath
        var rssi: Int16?
        var lastHeard: ContinuousClock.Instant
    }

    init(name: String?, heardAt now: ContinuousClock.Instant) {
        self.name = name
        lastHeard = now
        reception = Reception(at: now)
    }

    var profile: ProfileID? { last?.profile }

    /// The advertising interval learned from the recent gaps, once three are known.
    var interval: Duration? { Reception.interval(gaps) }

    /// Notes an advertisement heard at `now`; a lost sensor starts afresh (its counter and
    /// payloads forgotten: what it sent while away is not counted as lost).
    ///
    /// - Parameter countsGaps: whether every advertisement is heard (active scanning with
    ///   duplicates), so that a sensor without a counter has its misses counted by interval;
    ///   scanning passively, bluetoothd reports only changed data.
    mutating func heard(at now: ContinuousClock.Instant, countsGaps: Bool = true) {
        if isLost {
            isLost = false
            firstPayload = nil
            morePayloads = []
            last = nil
            if countsGaps, reception.basis == .interval { reception.advertised(gap: nil, interval: nil, at: now) }
        } else {
            let gap = now - lastHeard
            if countsGaps, reception.basis == .interval { reception.advertised(gap: gap, interval: interval, at: now) }
            let (seconds, attoseconds) = gap.components
            gaps[gapIndex] = UInt32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000)
            gapIndex = (gapIndex + 1) % gaps.count
        }
        lastHeard = now
    }

    /// Notes what the adapter of the device object at `path` heard: its RSSI and when.
    mutating func heard(through path: BlueZPath, rssi: Int16?, at now: ContinuousClock.Instant) {
        if let index = hearing.firstIndex(where: { $0.path == path }) {
            hearing[index].lastHeard = now
            if let rssi { hearing[index].rssi = rssi }
        } else {
            hearing.append(Hearing(path: path, rssi: rssi, lastHeard: now))
        }
    }

    /// Whether an advertisement heard through `path` at `now` is another adapter's report of
    /// the one heard last: within half the sensor's interval (100 ms before one is learned)
    /// of it, through another device object. Its gap is not counted, and a measurement it
    /// brings is judged as late.
    func isEcho(through path: BlueZPath, at now: ContinuousClock.Instant) -> Bool {
        guard !isLost, let lastPath, lastPath != path else { return false }
        return now - lastHeard < (interval.map { $0 / 2 } ?? .milliseconds(100))
    }

    /// Counts an advertisement heard through `path` as the sensor's own (not an echo).
    mutating func counted(through path: BlueZPath) { lastPath = path }

    /// Whether `bytes` differ from the payload last heard in `field`; remembers them.
    mutating func payloadChanged(_ field: FieldKey, _ bytes: [UInt8]) -> Bool {
        guard let first = firstPayload, first.field != field else {
            guard firstPayload?.bytes != bytes else { return false }
            firstPayload = (field, bytes)
            return true
        }
        if let index = morePayloads.firstIndex(where: { $0.field == field }) {
            guard morePayloads[index].bytes != bytes else { return false }
            morePayloads[index].bytes = bytes
        } else {
            morePayloads.append((field, bytes))
        }
        return true
    }

    /// The payload last heard in `field`, if any.
    func payload(_ field: FieldKey) -> [UInt8]? {
        if let first = firstPayload, first.field == field { return first.bytes }
        return morePayloads.first { $0.field == field }?.bytes
    }

    /// The one entry of `entries` not in the last update's manufacturer data (a new key, or
    /// new bytes under an old one), or `nil` when none or several are; remembers `entries`.
    mutating func manufacturerDataChanges(_ entries: [UInt16: [UInt8]]) -> (UInt16, [UInt8])? {
        defer { lastManufacturerData = entries }
        var found: (UInt16, [UInt8])?
        for (company, bytes) in entries where lastManufacturerData[company] != bytes {
            guard found == nil else { return nil }
            found = (company, bytes)
        }
        return found
    }

    /// Judges a decoded reading by the sensor's counter and the rate limit, and counts it.
    ///
    /// - Parameter payloadChanged: whether the payload differs from the last one heard
    ///   (a format without a counter has only this to tell a new measurement by).
    mutating func admit(
        _ reading: AdvertisementReading, at now: ContinuousClock.Instant, payloadChanged: Bool,
        minInterval: Duration, unchangedRefresh: Duration, echo: Bool = false
    ) -> Admission {
        let profile = reading.measurement.profile
        var lost = 0
        if let last, last.profile == profile, last.authenticated == reading.isAuthenticated {
            switch (last.counter, reading.counter) {
            case (let previous?, let counter?):
                let modulus = reading.counterModulus
                let step = (UInt64(counter) &+ modulus &- UInt64(previous)) % modulus
                if step == 0 { return .repeated }
                // Another adapter's late report of a measurement already counted.
                if echo, modulus - step <= Self.lateSteps { return .repeated }
                // A counter that went back (a restart) is a new measurement, nothing known lost.
                lost = reception.measured(step: step, modulus: modulus, at: now)
            case (_, .some):
                reception.first(by: .counter, at: now)
            case (_, nil):
                // No counter: the payload changed (a new measurement) or the refresh is due.
                if !payloadChanged, let lastReading, now - lastReading < unchangedRefresh { return .repeated }
                if reception.basis != .interval { reception.first(by: .interval, at: now) }
            }
        } else {
            reception.first(by: reading.counter == nil ? .interval : .counter, at: now)
        }
        self.last = (profile, reading.counter, reading.isAuthenticated)
        lostPackets += lost
        if let lastReading, minInterval > .zero, now - lastReading < minInterval { return .throttled }
        lastReading = now
        readings += 1
        return .new(lost: lost)
    }

    /// How far back a counter heard by another adapter within the echo window may be and
    /// still be a late report, not a restart.
    static let lateSteps: UInt64 = 8

    /// How long the sensor may stay silent: its largest recent gap plus `margin`, or
    /// `floor`, whichever is longer.
    func staleAfter(floor: Duration, margin: Duration) -> Duration {
        var largest: UInt32 = 0
        for index in gaps.indices { largest = max(largest, gaps[index]) }
        return max(floor, .milliseconds(Int64(largest)) + margin)
    }

    /// When the sensor is lost unless heard again.
    func deadline(floor: Duration, margin: Duration) -> ContinuousClock.Instant {
        lastHeard + staleAfter(floor: floor, margin: margin)
    }

    mutating func markLost() { isLost = true }
}

/// An advertisement field as BlueZ keys it: a service data UUID (lower-case 128-bit text)
/// or a company id. Compared without parsing the UUID.
enum FieldKey: Hashable {
    case service(String)
    case manufacturer(UInt16)
    /// Manufacturer data whose company id is data (Inkbird, ThermoPro), with the id's bytes.
    case anyManufacturer
}
