/// The result of `status`; also what `blectl status --json` prints.
public struct StatusResult: Codable, Equatable, Sendable {
    /// Always `"blectld"`.
    public var daemon: String
    /// The daemon's software version.
    public var version: String
    /// The adapter in use, e.g. `hci0`, once known.
    public var adapter: String?
    /// The adapter's state.
    public var state: AdapterState
    /// The connected thermometers.
    public var connected: [ConnectedPeripheral]
    /// The highest sequence number assigned so far (0 before the first reading).
    public var lastSeq: UInt64
    /// When the daemon started.
    public var started: Timestamp

    /// Creates a status.
    public init(
        daemon: String = ProtocolInfo.daemonName, version: String = ProtocolInfo.softwareVersion,
        adapter: String?, state: AdapterState, connected: [ConnectedPeripheral], lastSeq: UInt64,
        started: Timestamp
    ) {
        self.daemon = daemon
        self.version = version
        self.adapter = adapter
        self.state = state
        self.connected = connected
        self.lastSeq = lastSeq
        self.started = started
    }

    private enum CodingKeys: String, CodingKey {
        case daemon, version, adapter, state, connected, started
        case lastSeq = "last_seq"
    }

    /// Encodes the wire form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(daemon, forKey: .daemon)
        try container.encode(version, forKey: .version)
        try container.encode(adapter, forKey: .adapter)
        try container.encode(state, forKey: .state)
        try container.encode(connected, forKey: .connected)
        try container.encode(lastSeq, forKey: .lastSeq)
        try container.encode(started, forKey: .started)
    }
}

/// A connected thermometer in a status.
public struct ConnectedPeripheral: Codable, Equatable, Sendable {
    /// Its address.
    public var address: String
    /// Its name, if known.
    public var name: String?
    /// When it connected.
    public var since: Timestamp
    /// Its latest reading, if any.
    public var lastReading: Reading?

    /// Creates an entry.
    public init(address: String, name: String?, since: Timestamp, lastReading: Reading?) {
        self.address = address
        self.name = name
        self.since = since
        self.lastReading = lastReading
    }

    private enum CodingKeys: String, CodingKey {
        case address, name, since
        case lastReading = "last_reading"
    }
}

/// A row of the peripheral table: the result of `peripherals` and `scan`.
public struct PeripheralInfo: Codable, Equatable, Sendable {
    /// Its address.
    public var address: String
    /// Its name, if known.
    public var name: String?
    /// The last signal strength, dBm.
    public var rssi: Int?
    /// Whether it is a thermometer the daemon connects to.
    public var thermometer: Bool
    /// Whether it is connected now.
    public var connected: Bool
    /// When it was last seen or heard from.
    public var lastSeen: Timestamp

    /// Creates a row.
    public init(address: String, name: String?, rssi: Int?, thermometer: Bool, connected: Bool, lastSeen: Timestamp) {
        self.address = address
        self.name = name
        self.rssi = rssi
        self.thermometer = thermometer
        self.connected = connected
        self.lastSeen = lastSeen
    }

    private enum CodingKeys: String, CodingKey {
        case address, name, rssi, thermometer, connected
        case lastSeen = "last_seen"
    }

    /// Encodes the wire form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(address, forKey: .address)
        try container.encode(name, forKey: .name)
        try container.encode(rssi, forKey: .rssi)
        try container.encode(thermometer, forKey: .thermometer)
        try container.encode(connected, forKey: .connected)
        try container.encode(lastSeen, forKey: .lastSeen)
    }
}

/// One thermometer's temperature in the result of `read`; also what `blectl read --json` prints.
public struct ReadingReport: Codable, Equatable, Sendable {
    /// The thermometer's address.
    public var address: String
    /// Its name, if known.
    public var name: String?
    /// Degrees Celsius.
    public var celsius: Double
    /// The value as the device sent it.
    public var raw: String
    /// The unit the device reported in.
    public var unit: TemperatureUnit
    /// When the value arrived.
    public var time: Timestamp
    /// The reading's sequence number.
    public var seq: UInt64
    /// How old the value was when the reply was made, in seconds.
    public var ageSeconds: Double
    /// Whether the value was read for this request (false: the latest stored reading).
    public var fresh: Bool

    /// Creates a report of `reading` as seen at `now`.
    public init(_ reading: Reading, fresh: Bool, ageSeconds: Double) {
        address = reading.address
        name = reading.name
        celsius = reading.celsius
        raw = reading.raw
        unit = reading.unit
        time = reading.time
        seq = reading.seq
        self.ageSeconds = ageSeconds
        self.fresh = fresh
    }

    private enum CodingKeys: String, CodingKey {
        case address, name, celsius, raw, unit, time, seq, fresh
        case ageSeconds = "age_seconds"
    }

    /// Encodes the wire form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(address, forKey: .address)
        try container.encode(name, forKey: .name)
        try container.encode(celsius, forKey: .celsius)
        try container.encode(raw, forKey: .raw)
        try container.encode(unit, forKey: .unit)
        try container.encode(time, forKey: .time)
        try container.encode(seq, forKey: .seq)
        try container.encode(ageSeconds, forKey: .ageSeconds)
        try container.encode(fresh, forKey: .fresh)
    }
}

/// The result of `history`.
public struct HistoryResult: Codable, Equatable, Sendable {
    /// Readings and reading errors with `seq` > `since`, oldest first.
    public var events: [Event]
    /// The highest sequence number assigned so far.
    public var lastSeq: UInt64
    /// False when some events after `since` were already dropped from the bounded history.
    public var complete: Bool
    /// True when `limit` cut the list short: ask again with `since` = the last `seq` returned.
    public var more: Bool

    /// Creates a result.
    public init(events: [Event], lastSeq: UInt64, complete: Bool, more: Bool) {
        self.events = events
        self.lastSeq = lastSeq
        self.complete = complete
        self.more = more
    }

    private enum CodingKeys: String, CodingKey {
        case events, complete, more
        case lastSeq = "last_seq"
    }
}

/// The result of `subscribe`.
public struct SubscribeResult: Codable, Equatable, Sendable {
    /// The event types now pushed on this connection.
    public var events: [EventType]
    /// The highest sequence number assigned before the subscription took effect: every
    /// reading with a greater `seq` will be pushed, so `history` since a remembered seq
    /// plus this subscription miss nothing.
    public var lastSeq: UInt64

    /// Creates a result.
    public init(events: [EventType], lastSeq: UInt64) {
        self.events = events
        self.lastSeq = lastSeq
    }

    private enum CodingKeys: String, CodingKey {
        case events
        case lastSeq = "last_seq"
    }
}
