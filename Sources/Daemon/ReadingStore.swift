import BlectlProtocol

/// The bounded reading history: per device, the newest readings and reading errors.
///
/// Sequence numbers are global and increasing, so each device's buffer is sorted by
/// `seq`. What was evicted is remembered as a high-water mark, so `history` can say
/// whether a client asking "since N" missed anything.
struct ReadingStore {
    private struct Device {
        var events: BoundedBuffer<Event>
        var latestReading: Reading?
        var name: String?
        var lastSeq: UInt64 = 0
        /// The highest `seq` evicted from `events`.
        var evictedThrough: UInt64 = 0

        /// Appends one event with its `seq`, in place.
        mutating func record(_ event: Event, seq: UInt64) {
            if let evicted = events.append(event)?.seq {
                evictedThrough = max(evictedThrough, evicted)
            }
            lastSeq = seq
            if case .reading(let reading) = event {
                latestReading = reading
                name = reading.name ?? name
            }
        }
    }

    let perDevice: Int
    let maxDevices: Int
    private var devices: [String: Device] = [:]
    /// The highest `seq` of any device whose whole history was dropped to make room.
    private var forgottenThrough: UInt64 = 0

    init(perDevice: Int, maxDevices: Int) {
        self.perDevice = perDevice
        self.maxDevices = maxDevices
    }

    /// Stores a reading or reading error (events without `seq` and address are ignored).
    mutating func record(_ event: Event) {
        guard let seq = event.seq, let address = event.address else { return }
        // Mutated in place: copying a `Device` out would copy its whole history buffer.
        let isNew = devices[address] == nil
        devices[address, default: Device(events: BoundedBuffer(capacity: perDevice))].record(event, seq: seq)
        if isNew, devices.count > maxDevices { forgetOldestDevice(except: address) }
    }

    private mutating func forgetOldestDevice(except address: String) {
        guard let oldest = devices.filter({ $0.key != address }).min(by: { $0.value.lastSeq < $1.value.lastSeq })
        else { return }
        forgottenThrough = max(forgottenThrough, oldest.value.lastSeq)
        devices[oldest.key] = nil
    }

    /// The newest reading of `address`.
    func latestReading(_ address: String) -> Reading? {
        devices[address]?.latestReading
    }

    /// The newest reading of every device `matches` accepts, by address.
    func latestReadings(where matches: (_ address: String, _ name: String?) -> Bool) -> [Reading] {
        devices.compactMap { address, device in
            matches(address, device.name) ? device.latestReading : nil
        }.sorted { $0.address < $1.address }
    }

    /// The last name a reading carried for `address`.
    func name(of address: String) -> String? {
        devices[address]?.name
    }

    /// Events with `seq` > `since` for one device or all, oldest first, at most `limit`.
    func history(address: String?, since: UInt64, limit: Int) -> (events: [Event], complete: Bool, more: Bool) {
        let selected = address.map { devices[$0].map { [$0] } ?? [] } ?? Array(devices.values)
        var events: [Event] = []
        var total = 0
        for device in selected {
            let start = device.events.partitionPoint { ($0.seq ?? 0) <= since }
            total += device.events.count - start
            events += device.events.suffix(from: start, limit: limit)
        }
        events.sort { ($0.seq ?? 0) < ($1.seq ?? 0) }
        let lostThrough = selected.reduce(forgottenThrough) { max($0, $1.evictedThrough) }
        return (Array(events.prefix(limit)), lostThrough <= since, total > limit)
    }
}
