public import BlueZClient
public import SensorModel

/// Which adapters the central uses (the `adapter` or `adapters` setting), and what it
/// tells of them.
extension CentralManager {
    /// The adapters selected now, present and usable, in the order of the setting (else
    /// BlueZ's); two with one address count once (the first, by path).
    func selectedAdapters() -> [Adapter] { adapterSelection().selected }

    /// The adapters selected, and those left out because one before them has their address
    /// (two dongles with one address, or a clone: BlueZ gives each its own `hciN`).
    func adapterSelection() -> (selected: [Adapter], duplicates: [Adapter]) {
        let present = mirror { $0.adapters() }
        let central = present.filter(\.supportsCentral)
        var chosen: [Adapter]
        switch options.adapters {
        case nil:
            chosen = Self.single(options.adapter, in: central).map { [$0] } ?? []
        case .automatic?:
            chosen = central
        case .all?:
            chosen = present
        case .listed(let members)?:
            chosen = members.compactMap { member in present.first { matches($0, member) } }
        }
        var addresses: Set<BluetoothAddress> = []
        var duplicates: [Adapter] = []
        chosen.removeAll { adapter in
            guard let address = adapter.address, !addresses.insert(address).inserted else { return false }
            duplicates.append(adapter)
            return true
        }
        return (chosen, duplicates)
    }

    /// The adapters selected but not used because an adapter before them has the same
    /// address (interface names, `hci1`): adapters are known by address, so only the first
    /// of them is used.
    public var duplicateAdapters: [String] { adapterSelection().duplicates.map(\.interfaceName) }

    /// The adapter an `adapter` setting names (the first powered for `auto`).
    private static func single(_ selection: AdapterSelection, in adapters: [Adapter]) -> Adapter? {
        switch selection {
        case .automatic: adapters.first(where: \.powered) ?? adapters.first
        case .name(let name): adapters.first { $0.interfaceName == name }
        case .address(let address): adapters.first { $0.address == address }
        }
    }

    /// Whether `adapter` is the one a listed member names: by address, or by the address its
    /// name had when first seen (`hciN` is resolved once: a renumbered adapter keeps its place).
    private func matches(_ adapter: Adapter, _ member: AdapterSet.Member) -> Bool {
        switch member {
        case .address(let address): return adapter.address == address
        case .unresolved(let name):
            if let address = resolvedNames[name] { return adapter.address == address }
            return adapter.interfaceName == name
        }
    }

    /// Resolves listed `hciN` names to the addresses of the adapters so named now.
    func resolveAdapterNames() {
        guard case .listed(let members)? = options.adapters else { return }
        let present = mirror { $0.adapters() }
        for case .unresolved(let name) in members where resolvedNames[name] == nil {
            guard let address = present.first(where: { $0.interfaceName == name })?.address else { continue }
            resolvedNames[name] = address
        }
    }

    /// The configured adapters not present now (by address or unresolved name).
    public var missingAdapters: [String] {
        guard case .listed(let members)? = options.adapters else { return [] }
        let present = mirror { $0.adapters() }
        return members.compactMap { member in
            present.contains { matches($0, member) } ? nil : member.description
        }
    }

    /// The interface name now (`hci2`) of the adapter a configured entry names (`hci1`, or
    /// an address, as ``missingAdapters`` spells it); nil when it is not present. A listed
    /// `hciN` keeps its address, so a renumbered adapter answers to its old name.
    public func presentInterfaceName(ofConfigured entry: String) -> String? {
        guard case .listed(let members)? = options.adapters,
            let member = members.first(where: { $0.description == entry })
        else { return nil }
        return mirror { $0.adapters() }.first { matches($0, member) }?.interfaceName
    }

    /// The adapters in use, as `status` shows them.
    public func adapterReports() -> [AdapterReport] {
        let primary = adapterPath
        return selectedAdapters().map { adapter in
            let heard = mirror { $0.advertisingDevices(on: adapter.path) }.count
            return AdapterReport(
                name: adapter.interfaceName, address: adapter.address, alias: adapter.name,
                powered: adapter.powered, discovering: discovery[adapter.path]?.active ?? false,
                devicesHeard: heard, devicesOwned: ownership?.ownedCount(by: adapter.path) ?? heard,
                connected: mirror { $0.connectedDevices(on: adapter.path) }.count,
                isPrimary: adapter.path == primary)
        }
    }

    /// The paths of the adapters in use now.
    public var adapterPaths: [BlueZPath] { discovery.entries.map(\.path) }

    /// The paths of the adapters in use and powered now, in the order of the setting.
    public var poweredAdapterPaths: [BlueZPath] { adaptersInUse.all.filter(adaptersInUse.powered.contains) }

    /// The interface name (`hci1`) of the adapter at `path`.
    public func adapterName(of path: BlueZPath) -> String { path.lastElement }

    /// Whether `path` (a device or a GATT object) is on an adapter in use.
    func isOnAdapterInUse(_ path: BlueZPath) -> Bool {
        discovery.entries.contains { path.isBelow($0.path) }
    }
}

/// One adapter in use, as `status` shows it.
public struct AdapterReport: Sendable, Equatable {
    /// Its interface name now (`hci0`).
    public var name: String
    /// Its address: its identity.
    public var address: BluetoothAddress?
    /// Its name (`Alias`).
    public var alias: String?
    /// Whether it is powered.
    public var powered: Bool
    /// Whether we hold a discovery session on it.
    public var discovering: Bool
    /// Devices it hears now (with an RSSI in the current discovery).
    public var devicesHeard: Int
    /// Devices it owns (hears best: ``AdapterOwnership``); with one adapter, those it hears.
    public var devicesOwned: Int
    /// Devices connected through it.
    public var connected: Int
    /// Whether it is the primary adapter (the first powered): GATT connections go through it
    /// when it is the only one in use.
    public var isPrimary: Bool
}
