import BlectlProtocol
import ConcurrencySupport
import SensorModel

/// What the HTTP output learns from the hub's events, for the page and /metrics: each
/// device's newest reading, how regularly it reports, and its counters.
///
/// The hub calls ``record(_:)`` for every event on its own thread; that costs a lock and a
/// dictionary update. The counters count from the output's start (Prometheus handles
/// restarts of counters). At most ``capacity`` devices are kept: when more report, the one
/// heard from longest ago is forgotten, counters and all.
final class DeviceTracker: Sendable {
    /// The most devices tracked.
    let capacity: Int
    private let devices = Locked<[BluetoothAddress: TrackedDevice]>([:])

    init(capacity: Int = 512) {
        self.capacity = capacity
    }

    /// Takes in one event (the hub's listener).
    func record(_ event: Event) {
        guard let address = event.address else { return }
        devices.withLock { devices in
            if devices[address] == nil {
                guard Self.concerns(event) else { return }
                if devices.count >= capacity, let oldest = devices.values.min(by: { $0.lastHeard < $1.lastHeard }) {
                    devices[oldest.address] = nil
                }
            }
            devices[address, default: TrackedDevice(address: address)].apply(event)
        }
    }

    /// Every tracked device as it is now.
    func snapshot() -> [TrackedDevice] {
        devices.withLock { Array($0.values) }
    }

    /// Whether an event about a device not tracked yet starts tracking it: sightings of
    /// every device around do not, so that the table holds thermometers.
    private static func concerns(_ event: Event) -> Bool {
        switch event.type {
        case .reading, .readingError, .connected, .disconnected: true
        case .peripheralSeen, .peripheralLost, .adapterState: false
        }
    }
}

/// One device as the HTTP output tracks it.
struct TrackedDevice: Sendable, Equatable {
    /// The most distinct disconnection reasons counted apart; others count as `other`.
    static let reasonLimit = 8

    var address: BluetoothAddress
    var name: String?
    /// Its newest reading.
    var latest: Reading?
    /// On a device with several probes, each probe's newest reading (and the unit's own).
    var probeReadings = ProbeReadings()
    /// When it was last heard from (a reading, a reading error, a connection change).
    var lastHeard = Timestamp(millisecondsSince1970: 0)
    /// The recent intervals between its readings.
    var gaps = RecentGaps()
    var readings: UInt64 = 0
    var readingErrors: UInt64 = 0
    var connects: UInt64 = 0
    /// Disconnections by reason.
    var disconnects: [String: UInt64] = [:]

    init(address: BluetoothAddress) {
        self.address = address
    }

    mutating func apply(_ event: Event) {
        switch event {
        case .reading(let reading) where reading.source == .memory:
            readings += 1  // a past value read back: not the device's latest, nor its interval
        case .reading(let reading):
            if let previous = latest { gaps.add(reading.time.duration(since: previous.time)) }
            latest = reading
            probeReadings.keep(reading)
            readings += 1
            heard(reading.name, at: reading.time)
        case .readingError(let failure):
            readingErrors += 1
            heard(failure.name, at: failure.time)
        case .connected(let change):
            connects += 1
            heard(change.name, at: change.time)
        case .disconnected(let change):
            var reason = change.reason ?? "unknown"
            if disconnects[reason] == nil, disconnects.count >= Self.reasonLimit { reason = "other" }
            disconnects[reason, default: 0] += 1
            heard(change.name, at: change.time)
        case .peripheralSeen(let sighting):
            if let name = sighting.name { self.name = name }
        case .peripheralLost, .adapterState:
            break
        }
    }

    /// Its current values: the newest reading of each probe (and of the unit), or its newest reading.
    var currentReadings: [Reading] {
        probeReadings.current(latest: latest)
    }

    private mutating func heard(_ name: String?, at time: Timestamp) {
        if let name { self.name = name }
        lastHeard = max(lastHeard, time)
    }

    /// Whether its newest reading is too old to show as current at `now`: older than
    /// ``RecentGaps/staleAfter``. A device without readings is stale.
    func isStale(at now: Timestamp) -> Bool {
        guard let latest else { return true }
        return now.duration(since: latest.time) > gaps.staleAfter
    }
}

/// The last few intervals between a device's readings, and the staleness bound they give.
struct RecentGaps: Sendable, Equatable {
    /// How many intervals are remembered.
    static let count = 8
    private var recent: [Duration] = []

    /// Remembers one interval, forgetting the oldest beyond ``count``.
    mutating func add(_ gap: Duration) {
        if recent.count == Self.count { recent.removeFirst() }
        recent.append(max(gap, .zero))
    }

    /// The largest remembered interval.
    var largest: Duration { recent.max() ?? .zero }

    /// How long after its newest reading a device is stale: the largest recent interval
    /// plus 5 s, and at least 60 s (the rule the advertisement monitor uses for a sensor
    /// that stopped advertising).
    var staleAfter: Duration { max(largest + .seconds(5), .seconds(60)) }
}
