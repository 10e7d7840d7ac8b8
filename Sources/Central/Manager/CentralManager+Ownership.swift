public import BlueZClient
public import SensorModel

/// Device ownership across several adapters (``AdapterOwnership``): fed with BlueZ's
/// `RSSI` changes as they come, read when a thermometer connects.
///
/// With one adapter in use there is no table: nothing is done per advertisement and
/// every device is looked up on the primary adapter, as before.
extension CentralManager {
    /// Builds, follows or drops the table as the adapters in use change: the devices of an
    /// adapter gone or powered off go to the next best; an adapter newly powered starts
    /// with the RSSI BlueZ holds for its devices.
    func followOwnership(_ selected: [Adapter]) {
        guard selected.count > 1 else {
            ownership = nil
            return
        }
        var table = ownership ?? AdapterOwnership()
        ownership = nil
        let powered = Set(selected.filter(\.powered).map(\.path))
        let added = powered.subtracting(table.adapters)
        let now = ContinuousClock.now
        table.follow(powered, at: now)
        for adapter in added {
            for (path, rssi) in mirror({ $0.deviceSignals(on: adapter) }) where rssi != 127 {
                guard let address = path.deviceAddress else { continue }
                table.heard(address, on: adapter, rssi: Int(rssi), at: now)
            }
        }
        ownership = table
    }

    /// A device object's RSSI changed (127: BlueZ's "not known").
    func noteHearing(_ path: BlueZPath, _ rssi: Int16?) {
        guard let rssi, rssi != 127, let address = path.deviceAddress,
            let adapter = discovery.entries.first(where: { path.isChild(of: $0.path) })?.path
        else { return }
        ownership?.heard(address, on: adapter, rssi: Int(rssi), at: .now)
    }

    /// A link went down: its adapter heard the device until now (``AdapterOwnership/linkEnded(_:on:at:)``).
    func noteLinkEnded(_ path: BlueZPath) {
        guard let address = path.deviceAddress,
            let adapter = discovery.entries.first(where: { path.isChild(of: $0.path) })?.path
        else { return }
        ownership?.linkEnded(address, on: adapter, at: .now)
    }

    /// BlueZ removed a device object: its adapter no longer hears the device.
    func noteDeviceRemoved(_ path: BlueZPath) {
        guard let address = path.deviceAddress,
            let adapter = discovery.entries.first(where: { path.isChild(of: $0.path) })?.path
        else { return }
        ownership?.lost(address, on: adapter, at: .now)
    }

    /// The adapter that owns the device with `address` (hears it best), when several
    /// adapters are in use and one hears it.
    public func owner(of address: BluetoothAddress) -> BlueZPath? { ownership?.owner(of: address) }

    /// The device object to use for `address` among several adapters (powered ones): one
    /// whose link is up; else the one on the best ranked adapter that holds fewer than
    /// `linksPerAdapter` links; else the best ranked. Nil while the device is not settled
    /// (``AdapterOwnership/settleTime``).
    func ownedDevicePath(_ address: BluetoothAddress, linksPerAdapter: Int) -> BlueZPath? {
        guard let ownership, let usable = usableDevicePaths(address) else { return nil }
        if let linked = usable.paths.first(where: { isConnected($0.1) }) { return linked.1 }
        guard ownership.isSettled(address, adapterCount: usable.hearing, at: .now) else { return nil }
        let ranked = ownership.ranking(of: address, among: usable.paths.map(\.0), at: .now)
        let paths = ranked.compactMap { adapter in usable.paths.first { $0.0 == adapter } }
        let free = paths.first { adapter, _ in mirror { $0.connectedDevices(on: adapter) }.count < linksPerAdapter }
        return (free ?? paths.first)?.1
    }

    /// The adapters `peripheral` may connect through, best first (the connect slots grant
    /// the first with a free link, `max_connections` being per adapter): with several
    /// adapters in use, the one whose link is up alone, else the powered adapters holding
    /// its device object, its owner first; with one, the adapter of its path.
    public func connectAdapters(for peripheral: Peripheral) -> [BlueZPath] {
        guard let own = peripheral.path.adapter else { return [] }
        guard let ownership, let usable = usableDevicePaths(peripheral.address) else { return [own] }
        if let linked = usable.paths.first(where: { isConnected($0.1) }) { return [linked.0] }
        let ranked = ownership.ranking(of: peripheral.address, among: usable.paths.map(\.0), at: .now)
        return ranked.isEmpty ? [own] : ranked
    }

    /// The device objects of `address` on the powered adapters in use (adapter, device), and
    /// how many adapters in use are powered; nil when no adapter has its device object.
    private func usableDevicePaths(_ address: BluetoothAddress) -> (paths: [(BlueZPath, BlueZPath)], hearing: Int)? {
        // A cheap look first: this runs after every event while a thermometer is missing.
        let present = discovery.entries.compactMap { entry in
            entry.path.device(address).flatMap { hasDevice($0) ? (entry.path, $0) : nil }
        }
        if present.isEmpty { return nil }
        // Only powered adapters: one just powered off may still show its link up.
        let powered = Set(mirror { $0.adapters() }.filter(\.powered).map(\.path))
        let hearing = discovery.entries.count { powered.contains($0.path) }
        return (present.filter { powered.contains($0.0) }, hearing)
    }
}
