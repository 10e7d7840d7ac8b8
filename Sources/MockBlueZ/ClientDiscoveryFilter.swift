import DBusCore

/// One client's `SetDiscoveryFilter`, parsed as bluetoothd 5.66 parses it (`src/adapter.c`).
struct ClientDiscoveryFilter: Sendable, Equatable {
    /// Scan types, as a set of transports.
    struct Transport: OptionSet, Sendable, Equatable {
        let rawValue: Int
        static let bredr = Transport(rawValue: 1)
        static let le = Transport(rawValue: 2)
        static let auto: Transport = [.bredr, .le]
    }

    var uuids: [String] = []
    var rssi: Int16?
    var pathloss: UInt16?
    var transport: Transport = .auto
    /// Note: bluetoothd defaults this to false once a filter is set (the docs say true).
    var duplicateData = false
    var discoverable = false
    var pattern: String?

    /// The keys `GetDiscoveryFilters` lists, in bluetoothd's order.
    static let keys = ["UUIDs", "RSSI", "Pathloss", "Transport", "DuplicateData", "Discoverable", "Pattern"]

    /// Parses a filter dictionary; nil for an empty one (which clears the filter).
    /// Anything bluetoothd would refuse throws `org.bluez.Error.InvalidArguments`.
    static func parse(_ entries: [DBusDictionaryEntry]) throws -> ClientDiscoveryFilter? {
        guard !entries.isEmpty else { return nil }
        var filter = ClientDiscoveryFilter()
        for entry in entries {
            guard case .string(let key) = entry.key, case .variant(let value) = entry.value else {
                throw BluetoothdError.invalidArguments
            }
            try filter.apply(key, value)
        }
        // Only Pathloss or RSSI can be set, never both.
        if filter.rssi != nil && filter.pathloss != nil { throw BluetoothdError.invalidArguments }
        return filter
    }

    private mutating func apply(_ key: String, _ value: DBusValue) throws {
        switch (key, value) {
        case ("UUIDs", .array(element: "s", let items)):
            uuids = try items.map { item in
                guard case .string(let text) = item, let uuid = Self.fullUUID(text) else {
                    throw BluetoothdError.invalidArguments
                }
                return uuid
            }
        case ("RSSI", .int16(let threshold)) where (-127...20).contains(threshold):
            rssi = threshold
        case ("Pathloss", .uint16(let threshold)) where threshold <= 137:
            pathloss = threshold
        case ("Transport", .string("auto")): transport = .auto
        case ("Transport", .string("le")): transport = .le
        case ("Transport", .string("bredr")): transport = .bredr
        case ("DuplicateData", .boolean(let flag)): duplicateData = flag
        case ("Discoverable", .boolean(let flag)): discoverable = flag
        case ("Pattern", .string(let text)): pattern = text
        default: throw BluetoothdError.invalidArguments
        }
    }

    /// A UUID as bluetoothd's `bt_string_to_uuid` accepts it (16-, 32- or 128-bit), in the
    /// 128-bit lowercase form it compares with.
    static func fullUUID(_ text: String) -> String? {
        var hex = text.lowercased()
        if hex.hasPrefix("0x") { hex.removeFirst(2) }
        let isHex = { (s: Substring) in !s.isEmpty && s.allSatisfy { $0.isHexDigit } }
        switch hex.count {
        case 4 where isHex(hex[...]): return "0000" + hex + "-0000-1000-8000-00805f9b34fb"
        case 8 where isHex(hex[...]): return hex + "-0000-1000-8000-00805f9b34fb"
        case 36:
            let groups = hex.split(separator: "-", omittingEmptySubsequences: false)
            guard groups.map(\.count) == [8, 4, 4, 4, 12], groups.allSatisfy(isHex) else { return nil }
            return hex
        default: return nil
        }
    }
}

/// What one advertising report carries, for filtering.
struct AdvertisingReport: Sendable {
    var address: String
    var name: String?
    var rssi: Int16
    var txPower: Int16?
    var uuids: [String]
    var discoverable: Bool
    /// What the advertisement (with its scan response) carries.
    var manufacturerData: [UInt16: [UInt8]] = [:]
    var serviceData: [String: [UInt8]] = [:]
}

/// The discovery state of every client of one adapter, and bluetoothd's merge of their filters.
struct DiscoveryClients: Sendable {
    /// A client: its filter (kept across sessions) and whether it holds a discovery session.
    struct Client: Sendable {
        var filter: ClientDiscoveryFilter?
        var discovering: Bool
    }

    private(set) var clients: [String: Client] = [:]

    var anyDiscovering: Bool { clients.values.contains { $0.discovering } }
    var discoveringCount: Int { clients.values.filter(\.discovering).count }

    func isDiscovering(_ client: String) -> Bool { clients[client]?.discovering == true }
    func hasEntry(_ client: String) -> Bool { clients[client] != nil }

    mutating func start(_ client: String) {
        clients[client, default: Client(filter: nil, discovering: false)].discovering = true
    }

    /// Ends a session; a client with a filter keeps it for its next session (`set_filter_list`).
    mutating func stop(_ client: String) {
        guard var entry = clients[client] else { return }
        entry.discovering = false
        clients[client] = entry.filter == nil ? nil : entry
    }

    mutating func setFilter(_ filter: ClientDiscoveryFilter?, for client: String) {
        if var entry = clients[client] {
            entry.filter = filter
            clients[client] = entry.filter == nil && !entry.discovering ? nil : entry
        } else if let filter {
            clients[client] = Client(filter: filter, discovering: false)
        }
    }

    mutating func remove(_ client: String) { clients[client] = nil }
    mutating func removeAll() { clients = [:] }

    private var discovering: [Client] { clients.values.filter(\.discovering) }

    /// `filtered_discovery`: every session has a filter (one plain session makes it a regular scan).
    var isFiltered: Bool { anyDiscovering && discovering.allSatisfy { $0.filter != nil } }

    /// Some session asked for `DuplicateData`.
    var wantsDuplicateData: Bool { discovering.contains { $0.filter?.duplicateData == true } }

    /// What the kernel lets through under the merged filter (`merge_discovery_filters`): the
    /// scan's transports, the lowest RSSI threshold, the union of UUIDs (none if one client
    /// wants any).
    func kernelAccepts(_ report: AdvertisingReport) -> Bool {
        guard isFiltered else { return true }
        let filters = discovering.compactMap(\.filter)
        let transport = filters.reduce(ClientDiscoveryFilter.Transport()) { $0.union($1.transport) }
        guard transport.contains(.le) else { return false }
        if let threshold = filters.compactMap(\.rssi).min(), report.rssi < threshold { return false }
        if let pathloss = filters.compactMap(\.pathloss).max() {
            guard let tx = report.txPower, Int(tx) - Int(report.rssi) <= Int(pathloss) else { return false }
        }
        if !filters.contains(where: { $0.uuids.isEmpty }) {
            let wanted = Set(filters.flatMap(\.uuids))
            guard !wanted.isDisjoint(with: report.uuids) else { return false }
        }
        return true
    }

    /// `device_is_discoverable`: flags (ignored in a filtered scan), then prefix patterns.
    func isDiscoverable(_ report: AdvertisingReport) -> Bool {
        var discoverable = isFiltered || report.discoverable
        for client in discovering {
            guard let pattern = client.filter?.pattern else { continue }
            discoverable = false
            if pattern.isEmpty || report.address.hasPrefix(pattern) { return true }
            if let name = report.name, name.hasPrefix(pattern) { return true }
        }
        return discoverable
    }

    /// `is_filter_match`, faithfully including its proximity test, which lets every report with
    /// an RSSI threshold through (the kernel applied the threshold already).
    func matches(_ report: AdvertisingReport) -> Bool {
        for client in discovering {
            guard let filter = client.filter else { return true }
            guard filter.uuids.isEmpty || !Set(filter.uuids).isDisjoint(with: report.uuids) else { continue }
            if filter.rssi == nil || filter.rssi! <= report.rssi || filter.pathloss == nil {
                return true
            }
            if let tx = report.txPower, Int(tx) - Int(report.rssi) <= Int(filter.pathloss!) { return true }
        }
        return false
    }
}
