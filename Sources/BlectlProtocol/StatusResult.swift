public import SensorModel

/// The result of `status`; also what `blectl status --json` prints.
///
/// The daemon's own fields, and the sections the outputs and sources add (``sections``):
/// each under its name at the top level of the JSON object, as one would expect of fields
/// (`"history":{…}`, `"adapters":[…]`). A reader takes every top-level key it does not know
/// as a section, so sections a newer daemon adds pass through an older client.
public struct StatusResult: Codable, Equatable, Sendable {
    /// Always `"blectld"`.
    public var daemon: String
    /// The daemon's software version.
    public var version: String
    /// The adapter in use, e.g. `hci0`, once known.
    public var adapter: String?
    /// The adapter's state.
    public var state: AdapterState
    /// Why the adapter is not powered on, for people; null when it is.
    public var reason: String?
    /// The connected thermometers.
    public var connected: [ConnectedPeripheral]
    /// The highest sequence number assigned so far (0 before the first reading).
    public var lastSeq: UInt64
    /// When the daemon started.
    public var started: Timestamp
    /// What the outputs and sources added, by section name (`history`, `mqtt`, …): one
    /// entry per output that is on. Set them with ``setSection(_:)``, read them with
    /// ``section(_:)``; a value is never `null` (a section set to nil is removed).
    public private(set) var sections: [String: JSONValue] = [:]

    /// Creates a status without sections.
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

    /// The keys of the daemon's own fields: no section may take one.
    public static let coreKeys: Set<String> = [
        "daemon", "version", "adapter", "state", "reason", "connected", "last_seq", "started",
    ]

    /// The sections of protocol version 1 as first published: written as `null` while their
    /// output is off, as clients of that version expect every one of these keys. Sections
    /// added since are left out instead; this list does not grow.
    public static let nullWhenOff: [String] = [
        "history", "mqtt", "socket", "advertisements", "scan_watchdog", "sensor_memory", "calibration", "adapters",
        "missing_adapters",
    ]

    /// Sets (or, with nil, removes) the section `Section.sectionName`. A value with no JSON
    /// form (a NaN) removes it too: `status` still answers, without that section.
    public mutating func setSection<Section: StatusSection>(_ value: Section?) {
        setSection(named: Section.sectionName, value.flatMap { try? JSONValueEncoder.encode($0) })
    }

    /// Sets (or, with nil or `null`, removes) the section `name`, given as JSON.
    ///
    /// - Precondition: `name` is not one of ``coreKeys``.
    public mutating func setSection(named name: String, _ value: JSONValue?) {
        precondition(!Self.coreKeys.contains(name), "status section \(name) would replace a field of the daemon")
        sections[name] = value == .null ? nil : value
    }

    /// The section `Section.sectionName` as that type; nil when it is absent, or has a shape
    /// this build does not read (a client then shows it as it shows any unknown section).
    public func section<Section: StatusSection>(_ type: Section.Type) -> Section? {
        sections[Section.sectionName].flatMap { try? JSONValueDecoder.decode(type, from: $0) }
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init(stringValue: String) { self.init(stringValue) }
        init?(intValue: Int) { nil }

        static let daemon = Key("daemon"), version = Key("version"), adapter = Key("adapter"), state = Key("state")
        static let reason = Key("reason"), connected = Key("connected"), lastSeq = Key("last_seq")
        static let started = Key("started")
    }

    /// Decodes the daemon's fields, and every other top-level key that is not `null` as a section.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        daemon = try container.decode(String.self, forKey: .daemon)
        version = try container.decode(String.self, forKey: .version)
        adapter = try container.decodeIfPresent(String.self, forKey: .adapter)
        state = try container.decode(AdapterState.self, forKey: .state)
        reason = try container.decodeIfPresent(String.self, forKey: .reason)
        connected = try container.decode([ConnectedPeripheral].self, forKey: .connected)
        lastSeq = try container.decode(UInt64.self, forKey: .lastSeq)
        started = try container.decode(Timestamp.self, forKey: .started)
        for key in container.allKeys where !Self.coreKeys.contains(key.stringValue) {
            let value = try container.decode(JSONValue.self, forKey: key)
            if value != .null { sections[key.stringValue] = value }
        }
    }

    /// Encodes one flat object: the daemon's fields, the sections, and `null` for each
    /// section of ``nullWhenOff`` that is absent (left out when the encoder omits absent
    /// optionals; inside a section, written when it was set, an absent field stays `null`).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(daemon, forKey: .daemon)
        try container.encode(version, forKey: .version)
        try container.encodeIfPresent(adapter, forKey: .adapter)
        try container.encode(state, forKey: .state)
        try container.encodeIfPresent(reason, forKey: .reason)
        try container.encode(connected, forKey: .connected)
        try container.encode(lastSeq, forKey: .lastSeq)
        try container.encode(started, forKey: .started)
        for name in Self.nullWhenOff where sections[name] == nil {
            try container.encodeIfPresent(JSONValue?.none, forKey: Key(name))
        }
        for (name, value) in sections {
            try container.encode(value, forKey: Key(name))
        }
    }
}
