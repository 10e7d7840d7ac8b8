public import SensorModel

/// The kinds of event a client can subscribe to; the `type` of an event line.
public enum EventType: String, Codable, CaseIterable, Hashable, Sendable {
    /// A temperature arrived.
    case reading
    /// A value arrived that could not be decoded as a temperature.
    case readingError = "reading_error"
    /// A peripheral was discovered, or its name, RSSI or kind changed.
    case peripheralSeen = "peripheral_seen"
    /// A peripheral disappeared.
    case peripheralLost = "peripheral_lost"
    /// A thermometer connected.
    case connected
    /// A thermometer disconnected.
    case disconnected
    /// The adapter changed state.
    case adapterState = "adapter_state"

    /// Validates a list of type names from a request; nil means "all".
    static func parse(_ names: [String]?) -> Result<Set<EventType>?, ErrorInfo> {
        guard let names else { return .success(nil) }
        var types = Set<EventType>()
        for name in names {
            guard let type = EventType(rawValue: name) else {
                let known = allCases.map(\.rawValue).joined(separator: ", ")
                return .failure(ErrorInfo(.badRequest, "unknown event type \"\(name)\" (known: \(known))"))
            }
            types.insert(type)
        }
        return .success(types)
    }
}

/// A reading, as stored in history and pushed to subscribers: a ``Measurement`` with the
/// daemon's sequence number, time and the device's identity.
public struct Reading: Codable, Equatable, Sendable {
    /// The daemon-wide sequence number, increasing by one per reading or reading error.
    public var seq: UInt64
    /// When the daemon received the value.
    public var time: Timestamp
    /// The peripheral's Bluetooth address, `DC:A6:32:01:02:03`.
    public var address: BluetoothAddress
    /// The peripheral's name, if known.
    public var name: String?
    /// What was measured.
    public var measurement: Measurement
    /// The sensor's model as its profile's family declares it (`"LYWSD03MMC / MHO-C401"`);
    /// `nil` when the daemon's catalog does not list the profile, from an older daemon, and
    /// in history rows.
    public var model: String?
    /// Who makes the sensor, as its profile's family declares it (`"Xiaomi"`); `nil` as
    /// ``model`` is.
    public var manufacturer: String?
    /// Where the value came from: received as it was measured, or read back from the
    /// sensor's own memory after a gap (then ``time`` is the sensor's time of the measurement).
    public var source: ReadingSource

    /// Creates a reading.
    public init(
        seq: UInt64, time: Timestamp, address: BluetoothAddress, name: String?, measurement: Measurement,
        model: String? = nil, manufacturer: String? = nil, source: ReadingSource = .live
    ) {
        self.seq = seq
        self.time = time
        self.address = address
        self.name = name
        self.measurement = measurement
        self.model = model
        self.manufacturer = manufacturer
        self.source = source
    }

    /// The temperature in degrees Celsius, if measured.
    public var celsius: Double? { measurement.celsius }

    private enum CodingKeys: String, CodingKey { case seq, time, address, name, model, manufacturer, source }

    /// Decodes the wire form: the identity, then the measurement's fields beside it.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        seq = try container.decode(UInt64.self, forKey: .seq)
        time = try container.decode(Timestamp.self, forKey: .time)
        address = try container.decode(BluetoothAddress.self, forKey: .address)
        name = try container.decodeIfPresent(String.self, forKey: .name)
        measurement = try Measurement(fieldsFrom: decoder)
        model = try container.decodeIfPresent(String.self, forKey: .model)
        manufacturer = try container.decodeIfPresent(String.self, forKey: .manufacturer)
        source = try container.decodeIfPresent(ReadingSource.self, forKey: .source) ?? .live
    }

    /// Encodes the wire form: one flat object; `model` and `manufacturer` are left out
    /// (never `null`) when not known, `source` when the reading is live.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(seq, forKey: .seq)
        try container.encode(time, forKey: .time)
        try container.encode(address, forKey: .address)
        try container.encodeIfPresent(name, forKey: .name)
        try measurement.encodeFields(to: encoder)
        try container.encodeUnlessNil(model, forKey: .model)
        try container.encodeUnlessNil(manufacturer, forKey: .manufacturer)
        try container.encodeUnlessNil(source.recorded, forKey: .source)
    }
}

/// Where a reading's value came from.
public enum ReadingSource: String, Codable, Sendable, CaseIterable {
    /// Received as it was measured (an advertisement, a notification, a read).
    case live
    /// Read back from the sensor's own memory after a gap (docs/history.md).
    case memory

    /// The value written out in JSON: nil for ``live``, which is left out.
    public var recorded: ReadingSource? { self == .live ? nil : self }
}

/// A value that arrived but could not be decoded as a temperature.
public struct ReadingFailure: Codable, Equatable, Sendable {
    /// The daemon-wide sequence number, shared with readings.
    public var seq: UInt64
    /// When the value arrived.
    public var time: Timestamp
    /// The peripheral's address.
    public var address: BluetoothAddress
    /// The peripheral's name, if known.
    public var name: String?
    /// What was wrong with the value.
    public var error: String
    /// The value's bytes as lowercase hex.
    public var rawHex: String
    /// The sensor's model, by the profile of its latest reading (see ``Reading/model``);
    /// `nil` when no reading of it is known yet or its profile is not in the catalog.
    public var model: String?
    /// Who makes the sensor, known as ``model`` is.
    public var manufacturer: String?

    /// Creates a reading error.
    public init(
        seq: UInt64, time: Timestamp, address: BluetoothAddress, name: String?, error: String, rawHex: String,
        model: String? = nil, manufacturer: String? = nil
    ) {
        self.seq = seq
        self.time = time
        self.address = address
        self.name = name
        self.error = error
        self.rawHex = rawHex
        self.model = model
        self.manufacturer = manufacturer
    }

    private enum CodingKeys: String, CodingKey {
        case seq, time, address, name, error, model, manufacturer
        case rawHex = "raw_hex"
    }

    /// Encodes the wire form; `model` and `manufacturer` are left out (never `null`) when
    /// not known.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(seq, forKey: .seq)
        try container.encode(time, forKey: .time)
        try container.encode(address, forKey: .address)
        try container.encodeIfPresent(name, forKey: .name)
        try container.encode(error, forKey: .error)
        try container.encode(rawHex, forKey: .rawHex)
        try container.encodeUnlessNil(model, forKey: .model)
        try container.encodeUnlessNil(manufacturer, forKey: .manufacturer)
    }
}

/// A peripheral seen by a scan.
public struct PeripheralSighting: Codable, Equatable, Sendable {
    /// When it was seen.
    public var time: Timestamp
    /// Its address.
    public var address: BluetoothAddress
    /// Its advertised or cached name.
    public var name: String?
    /// The signal strength in dBm, if the adapter reported one.
    public var rssi: Int?
    /// Whether it matches the configured thermometer names or services.
    public var thermometer: Bool

    /// Creates a sighting.
    public init(time: Timestamp, address: BluetoothAddress, name: String?, rssi: Int?, thermometer: Bool) {
        self.time = time
        self.address = address
        self.name = name
        self.rssi = rssi
        self.thermometer = thermometer
    }

}

/// A change that concerns one peripheral: lost, connected or disconnected.
public struct PeripheralChange: Codable, Equatable, Sendable {
    /// When it happened.
    public var time: Timestamp
    /// The peripheral's address.
    public var address: BluetoothAddress
    /// Its name, if known.
    public var name: String?
    /// Why, for disconnections (e.g. `"connection timeout"`, `"remote user terminated"`).
    public var reason: String?

    /// Creates a change.
    public init(time: Timestamp, address: BluetoothAddress, name: String?, reason: String? = nil) {
        self.time = time
        self.address = address
        self.name = name
        self.reason = reason
    }
}

/// The adapter's new state.
public struct AdapterChange: Codable, Equatable, Sendable {
    /// When it changed.
    public var time: Timestamp
    /// The adapter, e.g. `hci0`; null while none is known (no bluetoothd, no adapter).
    public var adapter: String?
    /// Its state.
    public var state: AdapterState
    /// Why it is not powered on, for people (`bluetoothd is not running …`); null when it is.
    public var reason: String?

    /// Creates a change.
    public init(time: Timestamp, adapter: String?, state: AdapterState, reason: String? = nil) {
        self.time = time
        self.adapter = adapter
        self.state = state
        self.reason = reason
    }
}

/// One event line: `{"type":"reading","seq":12,…}`. Events carry no `"v"`; the hello
/// fixed the version for the connection.
public enum Event: Codable, Equatable, Sendable {
    /// `reading`.
    case reading(Reading)
    /// `reading_error`.
    case readingError(ReadingFailure)
    /// `peripheral_seen`.
    case peripheralSeen(PeripheralSighting)
    /// `peripheral_lost`.
    case peripheralLost(PeripheralChange)
    /// `connected`.
    case connected(PeripheralChange)
    /// `disconnected`, with a `reason`.
    case disconnected(PeripheralChange)
    /// `adapter_state`.
    case adapterState(AdapterChange)

    /// The event's kind.
    public var type: EventType {
        switch self {
        case .reading: .reading
        case .readingError: .readingError
        case .peripheralSeen: .peripheralSeen
        case .peripheralLost: .peripheralLost
        case .connected: .connected
        case .disconnected: .disconnected
        case .adapterState: .adapterState
        }
    }

    /// The sequence number, for readings and reading errors.
    public var seq: UInt64? {
        switch self {
        case .reading(let reading): reading.seq
        case .readingError(let failure): failure.seq
        default: nil
        }
    }

    /// When it happened (for readings and reading errors, when the value arrived).
    public var time: Timestamp {
        switch self {
        case .reading(let reading): reading.time
        case .readingError(let failure): failure.time
        case .peripheralSeen(let sighting): sighting.time
        case .peripheralLost(let change), .connected(let change), .disconnected(let change): change.time
        case .adapterState(let change): change.time
        }
    }

    /// The peripheral the event concerns, if any.
    public var address: BluetoothAddress? {
        switch self {
        case .reading(let reading): reading.address
        case .readingError(let failure): failure.address
        case .peripheralSeen(let sighting): sighting.address
        case .peripheralLost(let change), .connected(let change), .disconnected(let change): change.address
        case .adapterState: nil
        }
    }

    private enum TypeKey: String, CodingKey { case type }

    /// Decodes the wire form.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: TypeKey.self)
        switch try container.decode(EventType.self, forKey: .type) {
        case .reading: self = .reading(try Reading(from: decoder))
        case .readingError: self = .readingError(try ReadingFailure(from: decoder))
        case .peripheralSeen: self = .peripheralSeen(try PeripheralSighting(from: decoder))
        case .peripheralLost: self = .peripheralLost(try PeripheralChange(from: decoder))
        case .connected: self = .connected(try PeripheralChange(from: decoder))
        case .disconnected: self = .disconnected(try PeripheralChange(from: decoder))
        case .adapterState: self = .adapterState(try AdapterChange(from: decoder))
        }
    }

    /// Encodes the wire form.
    public func encode(to encoder: any Encoder) throws {
        // The payload and the type share one JSON object.
        var container = encoder.container(keyedBy: TypeKey.self)
        try container.encode(type, forKey: .type)
        switch self {
        case .reading(let payload): try payload.encode(to: encoder)
        case .readingError(let payload): try payload.encode(to: encoder)
        case .peripheralSeen(let payload): try payload.encode(to: encoder)
        case .peripheralLost(let payload), .connected(let payload), .disconnected(let payload):
            try payload.encode(to: encoder)
        case .adapterState(let payload): try payload.encode(to: encoder)
        }
    }
}
