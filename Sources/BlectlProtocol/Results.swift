public import SensorModel

/// One calibration offset in `status`: added to a quantity of a device's readings.
public struct CalibrationOffset: Codable, Equatable, Sendable {
    /// The device's address.
    public var address: BluetoothAddress
    /// The quantity offset: `temperature` or `humidity`.
    public var quantity: String
    /// What is added, in the quantity's unit (°C, %RH).
    public var offset: Double

    /// Creates an offset.
    public init(address: BluetoothAddress, quantity: String, offset: Double) {
        self.address = address
        self.quantity = quantity
        self.offset = offset
    }
}

/// The socket server's part of `status`.
public struct SocketStatus: Codable, Equatable, Sendable {
    /// Clients connected now.
    public var clients: Int

    /// Creates a status.
    public init(clients: Int) {
        self.clients = clients
    }
}

/// A connected thermometer in a status.
public struct ConnectedPeripheral: Codable, Equatable, Sendable {
    /// Its address.
    public var address: BluetoothAddress
    /// Its name, if known.
    public var name: String?
    /// When it connected.
    public var since: Timestamp
    /// Its latest reading, if any.
    public var lastReading: Reading?

    /// Creates an entry.
    public init(address: BluetoothAddress, name: String?, since: Timestamp, lastReading: Reading?) {
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
    public var address: BluetoothAddress
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
    /// The profile its latest reading was decoded by (`bthome`, `pi-cputemp`, …); null
    /// before any reading.
    public var profile: String?
    /// That profile's family, for people (`Xiaomi MiBeacon`); null before any reading.
    public var family: String?
    /// The models the family covers (`LYWSD03MMC / MHO-C401`); null before any reading.
    public var model: String?
    /// Who makes them (`Xiaomi`); null before any reading.
    public var manufacturer: String?
    /// The adapters that heard it at the end of a `scan`, each with its RSSI (no
    /// `last_heard`), by interface name; absent outside a `scan` reply.
    public var adapters: [AdapterHearing]?

    /// Creates a row.
    public init(
        address: BluetoothAddress, name: String?, rssi: Int?, thermometer: Bool, connected: Bool, lastSeen: Timestamp
    ) {
        self.address = address
        self.name = name
        self.rssi = rssi
        self.thermometer = thermometer
        self.connected = connected
        self.lastSeen = lastSeen
    }

    private enum CodingKeys: String, CodingKey {
        case address, name, rssi, thermometer, connected, profile, family, model, manufacturer, adapters
        case lastSeen = "last_seen"
    }

    /// Encodes the wire form: `adapters` only in a `scan` reply (left out, never `null`,
    /// elsewhere), the other fields as always.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(address, forKey: .address)
        try container.encodeIfPresent(name, forKey: .name)
        try container.encodeIfPresent(rssi, forKey: .rssi)
        try container.encode(thermometer, forKey: .thermometer)
        try container.encode(connected, forKey: .connected)
        try container.encode(lastSeen, forKey: .lastSeen)
        try container.encodeIfPresent(profile, forKey: .profile)
        try container.encodeIfPresent(family, forKey: .family)
        try container.encodeIfPresent(model, forKey: .model)
        try container.encodeIfPresent(manufacturer, forKey: .manufacturer)
        try container.encodeUnlessNil(adapters, forKey: .adapters)
    }

    /// The row with `hearings` as its adapters, in the order of their names (`hci0`, `hci1`).
    public func heard(by hearings: [AdapterHearing]) -> PeripheralInfo {
        var row = self
        row.adapters = hearings.sorted { ($0.adapter.count, $0.adapter) < ($1.adapter.count, $1.adapter) }
        return row
    }
}

/// One thermometer's temperature in the result of `read`; also what `blectl read --json` prints.
public struct ReadingReport: Codable, Equatable, Sendable {
    /// The reading.
    public var reading: Reading
    /// How old the value was when the reply was made, in seconds.
    public var ageSeconds: Double
    /// Whether the value was read for this request (false: the latest stored reading).
    public var fresh: Bool

    /// Creates a report of `reading` as seen at `now`.
    public init(_ reading: Reading, fresh: Bool, ageSeconds: Double) {
        self.reading = reading
        self.ageSeconds = ageSeconds
        self.fresh = fresh
    }

    /// The thermometer's address.
    public var address: BluetoothAddress { reading.address }

    private enum CodingKeys: String, CodingKey {
        case fresh
        case ageSeconds = "age_seconds"
    }

    /// Decodes the wire form: the reading's fields and the report's, in one object.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        reading = try Reading(from: decoder)
        ageSeconds = try container.decode(Double.self, forKey: .ageSeconds)
        fresh = try container.decode(Bool.self, forKey: .fresh)
    }

    /// Encodes the wire form: one flat object.
    public func encode(to encoder: any Encoder) throws {
        try reading.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
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
    /// For a time range: the gaps recorded in the span this page covers (a gap may come again
    /// on the next page), oldest first; empty otherwise, and left out of the JSON then.
    public var gaps: [HistoryGap]

    /// Creates a result.
    public init(events: [Event], lastSeq: UInt64, complete: Bool, more: Bool, gaps: [HistoryGap] = []) {
        self.events = events
        self.lastSeq = lastSeq
        self.complete = complete
        self.more = more
        self.gaps = gaps
    }

    private enum CodingKeys: String, CodingKey {
        case events, complete, more, gaps
        case lastSeq = "last_seq"
    }

    /// Decodes a result; `gaps` is optional (daemons before it never send it).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        events = try container.decode([Event].self, forKey: .events)
        lastSeq = try container.decode(UInt64.self, forKey: .lastSeq)
        complete = try container.decode(Bool.self, forKey: .complete)
        more = try container.decode(Bool.self, forKey: .more)
        gaps = try container.decodeIfPresent([HistoryGap].self, forKey: .gaps) ?? []
    }

    /// Encodes the result, without `gaps` when there are none.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(events, forKey: .events)
        try container.encode(lastSeq, forKey: .lastSeq)
        try container.encode(complete, forKey: .complete)
        try container.encode(more, forKey: .more)
        if !gaps.isEmpty { try container.encode(gaps, forKey: .gaps) }
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

/// One adapter in use, in `status`.
public struct AdapterStatus: Codable, Equatable, Sendable {
    /// Its interface name now (`hci0`).
    public var name: String
    /// Its address, its identity (kept when a USB reset renumbers it).
    public var address: BluetoothAddress?
    /// Its Bluetooth name (`Alias`).
    public var alias: String?
    /// Whether it is powered.
    public var powered: Bool
    /// Whether blectld holds a discovery session on it.
    public var discovering: Bool
    /// Devices it hears now (with an RSSI in the current discovery).
    public var devicesHeard: Int
    /// Devices it owns (hears best, of the adapters in use): GATT connections to them go
    /// through it while it has a free link. With one adapter, the devices it hears.
    public var devicesOwned: Int
    /// Devices connected through it.
    public var connected: Int
    /// Links blectld holds or is opening through it (GATT thermometers and memory downloads),
    /// counted against ``linkLimit``; null from daemons before it.
    public var links: Int?
    /// The links it may hold (`max_connections`, per adapter); null from daemons before it.
    public var linkLimit: Int?
    /// Whether it is the primary adapter: the first powered, through which GATT connections
    /// go when it is the only one (with several, each device's owner is used).
    public var primary: Bool
    /// Recovery steps its scan watchdog took since start; null when the watchdog is off.
    public var recoverySteps: Int?

    /// Creates an entry.
    public init(
        name: String, address: BluetoothAddress?, alias: String?, powered: Bool, discovering: Bool, devicesHeard: Int,
        devicesOwned: Int = 0, connected: Int, links: Int? = nil, linkLimit: Int? = nil, primary: Bool,
        recoverySteps: Int? = nil
    ) {
        self.name = name
        self.address = address
        self.alias = alias
        self.powered = powered
        self.discovering = discovering
        self.devicesHeard = devicesHeard
        self.devicesOwned = devicesOwned
        self.connected = connected
        self.links = links
        self.linkLimit = linkLimit
        self.primary = primary
        self.recoverySteps = recoverySteps
    }

    /// Not `name` and `address`: those keys name devices in `status` (the shell completions
    /// pick devices by them).
    private enum CodingKeys: String, CodingKey {
        case alias, powered, discovering, connected, links, primary
        case name = "interface"
        case linkLimit = "link_limit"
        case address = "adapter_address"
        case devicesHeard = "devices_heard"
        case devicesOwned = "devices_owned"
        case recoverySteps = "recovery_steps"
    }
}
