import BlectlProtocol

/// The bounded reading history: per device, the newest readings and reading errors.
///
/// A full history is a thousand entries per device, so they are stored compactly
/// (``HistoryEntry``, the address once per device); history requests are rare, so the
/// protocol values are rebuilt on the way out.
/// Sequence numbers are global and increasing, so each device's buffer is sorted by
/// `seq`. What was evicted is remembered as a high-water mark, so `history` can say
/// whether a client asking "since N" missed anything.
struct ReadingStore {
    private struct Device {
        /// The address, once for all the device's entries.
        let address: String
        var entries: BoundedBuffer<HistoryEntry>
        /// The names the entries carry.
        var names = HistoryNames()
        /// The newest reading (not reading error), which may have left `entries`.
        var latestReading: HistoryEntry?
        var name: String?
        var lastSeq: UInt64 = 0
        /// The highest `seq` evicted from `entries`.
        var evictedThrough: UInt64 = 0

        init(address: String, capacity: Int) {
            self.address = address
            entries = BoundedBuffer(capacity: capacity)
        }

        /// Appends a reading or reading error, in place.
        mutating func record(_ event: Event) {
            guard let entry = HistoryEntry(event, names: &names) else { return }
            if let evicted = entries.append(entry)?.seq {
                evictedThrough = max(evictedThrough, evicted)
            }
            lastSeq = entry.seq
            if case .reading(let reading) = event {
                latestReading = entry
                name = reading.name ?? name
            }
        }

        func reading(_ entry: HistoryEntry?) -> Reading? {
            entry?.reading(address: address, names: names)
        }

        func event(_ entry: HistoryEntry) -> Event {
            entry.event(address: address, names: names)
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
        guard event.seq != nil, let address = event.address else { return }
        // Mutated in place: copying a `Device` out would copy its whole history buffer.
        let isNew = devices[address] == nil
        devices[address, default: Device(address: address, capacity: perDevice)].record(event)
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
        devices[address].flatMap { $0.reading($0.latestReading) }
    }

    /// The newest reading of every device `matches` accepts, by address.
    func latestReadings(where matches: (_ address: String, _ name: String?) -> Bool) -> [Reading] {
        devices.values.compactMap { device in
            matches(device.address, device.name) ? device.reading(device.latestReading) : nil
        }.sorted { $0.address < $1.address }
    }

    /// The last name a reading carried for `address`.
    func name(of address: String) -> String? {
        devices[address]?.name
    }

    /// Events with `seq` > `since` for one device or all, oldest first, at most `limit`.
    func history(address: String?, since: UInt64, limit: Int) -> (events: [Event], complete: Bool, more: Bool) {
        let selected = address.map { devices[$0].map { [$0] } ?? [] } ?? Array(devices.values)
        // Merged by `seq` as compact entries; only the page returned becomes events.
        var found: [(entry: HistoryEntry, device: Int)] = []
        var total = 0
        for (index, device) in selected.enumerated() {
            let start = device.entries.partitionPoint { $0.seq <= since }
            total += device.entries.count - start
            found += device.entries.suffix(from: start, limit: limit).lazy.map { ($0, index) }
        }
        found.sort { $0.entry.seq < $1.entry.seq }
        let events = found.prefix(limit).map { selected[$0.device].event($0.entry) }
        let lostThrough = selected.reduce(forgottenThrough) { max($0, $1.evictedThrough) }
        return (events, lostThrough <= since, total > limit)
    }
}
