import BlectlProtocol
import SensorModel
import UnixSupport

/// What the hub knows about one peripheral.
struct PeripheralRecord: Equatable, Sendable {
    var address: BluetoothAddress
    var name: String?
    var rssi: Int?
    var isThermometer: Bool
    var lastSeen: Timestamp
    /// When a `peripheral_seen` event last went out for it.
    var lastAnnounced: Timestamp?
    /// When it connected, while it is connected.
    var connectedSince: Timestamp?
    /// Its newest reading (not reading error); older ones are in the history store.
    var latestReading: Reading?
    /// On a device with several probes, each probe's newest reading (and the unit's own);
    /// empty for any other device (its ``latestReading`` is its one current value).
    var probeReadings = ProbeReadings()
    /// Whether its readings come without a link (an advertising sensor, the host's CPU):
    /// its latest reading is its current value, `read` reports it without waiting.
    var broadcasting = false
    /// Its newest reading error, for `read` to say why it has no value (a wrong key).
    var latestFailure: ReadingFailure?
}

extension PeripheralRecord {
    /// Its current values: the newest reading of each probe, or its newest reading.
    var currentReadings: [Reading] {
        probeReadings.current(latest: latestReading)
    }

    fileprivate mutating func heard(name: String?, at now: Timestamp) {
        if let name, name != self.name { self.name = name }
        lastSeen = now
    }
}

/// The peripheral table, bounded: when full, the peripheral not seen for the longest
/// time (and not connected) makes room, in O(1) (a flood of devices must not cost the
/// hub a scan of its table per sighting).
struct PeripheralTable {
    private(set) var records: RecencyTable<BluetoothAddress, PeripheralRecord>

    init(capacity: Int) {
        records = RecencyTable(capacity: capacity)
    }

    var capacity: Int { records.capacity }

    subscript(address: BluetoothAddress) -> PeripheralRecord? {
        records[address]
    }

    var connected: [PeripheralRecord] {
        records.values.filter { $0.connectedSince != nil }.sorted { $0.address < $1.address }
    }

    /// The devices whose readings come without a link and that are heard now (a lost one
    /// leaves the table), by address.
    var broadcasting: [PeripheralRecord] {
        records.values.filter { $0.broadcasting && $0.latestReading != nil }.sorted { $0.address < $1.address }
    }

    /// Records a sighting; returns whether it deserves a `peripheral_seen` event: new,
    /// renamed, changed kind, or not announced for `refresh` (RSSI alone changes too
    /// often to announce every time).
    mutating func see(
        address: BluetoothAddress, name: String?, rssi: Int?, isThermometer: Bool, at now: Timestamp, refresh: Duration
    ) -> Bool {
        var record =
            records[address]
            ?? PeripheralRecord(address: address, rssi: rssi, isThermometer: isThermometer, lastSeen: now)
        let changed =
            record.lastAnnounced == nil || (name != nil && name != record.name)
            || isThermometer != record.isThermometer
        let stale = record.lastAnnounced.map { now.duration(since: $0) >= refresh } ?? true
        record.name = name ?? record.name
        record.rssi = rssi ?? record.rssi
        // A sensor read from its advertisements is a thermometer whatever the GATT side says.
        record.isThermometer = isThermometer || record.broadcasting
        record.lastSeen = now
        let announce = changed || stale
        if announce { record.lastAnnounced = now }
        insert(record)
        return announce
    }

    /// Removes a peripheral that went away; a connected one stays until it disconnects.
    mutating func lose(_ address: BluetoothAddress) -> PeripheralRecord? {
        guard let record = records[address] else { return nil }
        if record.connectedSince == nil { records.remove(address) }
        return record
    }

    /// Marks `address` connected (adding it if unknown: only thermometers are connected).
    mutating func connect(_ address: BluetoothAddress, name: String?, at now: Timestamp) {
        var record =
            records[address] ?? PeripheralRecord(address: address, isThermometer: true, lastSeen: now)
        record.name = name ?? record.name
        record.lastSeen = now
        record.connectedSince = record.connectedSince ?? now
        record.broadcasting = false
        insert(record)
    }

    /// Marks `address` disconnected; returns the record if it was connected.
    mutating func disconnect(_ address: BluetoothAddress, at now: Timestamp) -> PeripheralRecord? {
        guard var record = records[address], record.connectedSince != nil else { return nil }
        record.connectedSince = nil
        record.lastSeen = now
        insert(record)
        return record
    }

    /// Notes that `address` was heard from (a reading error), learning its name if given.
    /// Keeps `failure` as its known device's newest reading error.
    mutating func failed(_ failure: ReadingFailure) {
        records.modify(failure.address) { $0.latestFailure = failure }
    }

    mutating func heard(_ address: BluetoothAddress, name: String?, at now: Timestamp) {
        // In place: one lookup, no copy of the record (this runs for every reading). A
        // connected record is never forgotten, so its place in the recency order can wait
        // for its disconnection.
        records.modify(address) { $0.heard(name: name, at: now) }
    }

    /// Keeps `reading` as its device's newest, adding a device not seen before (an
    /// advertising sensor, or one connected before the table knew it).
    /// Returns when the device's reading before this one arrived, if one did.
    @discardableResult
    mutating func record(_ reading: Reading) -> Timestamp? {
        var previous: Timestamp?
        // In place (this runs for every reading); a connected record keeps its place in the
        // recency order, any other is moved up, as a sighting would.
        let connected = records.modify(reading.address) { record in
            record.heard(name: reading.name, at: reading.time)
            previous = record.latestReading?.time
            record.latestReading = reading
            record.probeReadings.keep(reading)
            // A device whose broadcasts a format decodes is a sensor from its first reading on,
            // not only from its next sighting.
            if record.connectedSince == nil {
                record.broadcasting = true
                record.isThermometer = true
            }
            return record.connectedSince != nil
        }
        switch connected {
        case true?:
            break
        case false?:
            if let record = records[reading.address] { insert(record) }
        case nil:
            var record = PeripheralRecord(
                address: reading.address, name: reading.name, isThermometer: true, lastSeen: reading.time)
            record.latestReading = reading
            record.probeReadings.keep(reading)
            record.broadcasting = true
            insert(record)
        }
        return previous
    }

    /// The current values of every device `matches` accepts (the newest reading, or on a
    /// device with several probes each probe's), by address and probe.
    func latestReadings(where matches: (PeripheralRecord) -> Bool) -> [Reading] {
        records.values.filter(matches).sorted { $0.address < $1.address }.flatMap(\.currentReadings)
    }

    private mutating func insert(_ record: PeripheralRecord) {
        records.touch(record.address, record) { _, record in record.connectedSince != nil }
    }
}

extension Duration {
    /// The duration in seconds as a `Double`.
    var seconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) / 1e18
    }
}
