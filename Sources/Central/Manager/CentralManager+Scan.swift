public import BlueZClient
public import ThermometerProfiles

/// What a scan looks for: a device matches when it advertises one of the
/// services or one of the names (or anything, when both are empty).
public struct ScanFilter: Sendable, Equatable {
    /// Service UUIDs to match in the advertisement.
    public var services: [BluetoothUUID]
    /// Local names to match exactly.
    public var names: [String]

    /// Creates a filter.
    public init(services: [BluetoothUUID] = [], names: [String] = []) {
        self.services = services
        self.names = names
    }

    /// Whether an advertisement matches.
    public func matches(_ advertisement: AdvertisementData) -> Bool {
        if services.isEmpty, names.isEmpty { return true }
        if let name = advertisement.localName, names.contains(name) { return true }
        return !Set(services).isDisjoint(with: advertisement.serviceUUIDs)
    }
}

extension CentralManager {
    /// Starts scanning on every adapter in use; discoveries arrive as
    /// ``CentralEvent/discovered(_:)``.
    ///
    /// The BlueZ filter is only `Transport=le` (with duplicates, so RSSI
    /// updates keep coming): BlueZ merges filters across clients and a name
    /// cannot be filtered there, so matching happens here. The scan resumes
    /// by itself after bluetoothd restarts, on an adapter that comes back on, and on one
    /// that appears. An adapter that refuses `StartDiscovery` is tried again later, while
    /// the others scan; this throws only when no adapter scans.
    public func scanForPeripherals(matching filter: ScanFilter) async throws(CentralError) {
        scanFilter = filter
        try await applyScan()
        // Devices heard in this discovery already (another client scans): a cheap property
        // check first, views only for those (BlueZ may know ten thousand devices).
        for adapter in discovery.activePaths {
            for path in mirror({ $0.advertisingDevices(on: adapter) }) { reportDiscovery(path) }
        }
    }

    /// Stops our scan on every adapter (BlueZ keeps scanning while other clients hold sessions).
    public func stopScan() async {
        scanFilter = nil
        let adapters = discovery.activePaths
        for adapter in adapters { setDiscovery(adapter, false) }
        for adapter in adapters { try? await client.stopDiscovery(adapter) }
    }

    /// Stops and starts our discovery session again (a fresh scan window:
    /// some controllers report each advertiser once per scan); on `adapter` only when given.
    public func restartScan(on adapter: BlueZPath? = nil) async throws(CentralError) {
        let adapters = adapter.map { path in discovery.activePaths.filter { $0 == path } } ?? discovery.activePaths
        guard scanFilter != nil, !adapters.isEmpty else { return }
        for adapter in adapters {
            setDiscovery(adapter, false)
            try? await client.stopDiscovery(adapter)
        }
        try await applyScan()
    }

    /// Whether we hold a discovery session on some adapter.
    public var isScanning: Bool { discovery.anyActive }

    /// Whether we hold a discovery session on `adapter`.
    public func isScanning(on adapter: BlueZPath) -> Bool { discovery[adapter]?.active ?? false }

    /// Whether every powered adapter in use that may be tried now has our session.
    public var isScanningEverywhere: Bool { adaptersToStart(at: .now).isEmpty }

    /// Starts discovery on each powered adapter in use that lacks our session.
    func applyScan() async throws(CentralError) {
        guard scanFilter != nil else { return }
        guard state == .poweredOn else { throw .notPoweredOn(state) }
        var failure: BlueZError?
        for adapter in adaptersToStart(at: .now) {
            do {
                try await client.setDiscoveryFilter(adapter, DiscoveryFilter(transport: "le", duplicateData: true))
                try await startDiscovery(adapter)
                guard scanFilter != nil else {
                    try? await client.stopDiscovery(adapter)
                    continue
                }
                setDiscovery(adapter, true)
            } catch {
                failure = error
                refused(adapter, error)
            }
        }
        if let failure, !discovery.anyActive { throw .bluez(failure) }
    }

    /// The powered adapters in use without our session that may be tried now.
    private func adaptersToStart(at now: ContinuousClock.Instant) -> [BlueZPath] {
        let powered = Set(mirror { $0.adapters() }.filter(\.powered).map(\.path))
        return discovery.entries.filter {
            !$0.active && powered.contains($0.path) && discovery.mayStart($0.path, at: now)
        }
        .map(\.path)
    }

    /// An adapter refused discovery: logged, and tried again after a delay while we scan.
    private func refused(_ adapter: BlueZPath, _ error: BlueZError) {
        guard let delay = discovery.refused(adapter, at: .now) else { return }
        emit(.discoveryRefused(adapter, "StartDiscovery failed (\(error)); trying again in \(delay)"))
        executor.schedule(after: delay) { [weak self] in self?.assumeIsolated { $0.resumeScanIfWanted() } }
    }

    /// `StartDiscovery`, and once more after `InProgress`: bluetoothd 5.66 answers that both
    /// when this client holds a session already and when the kernel refused to start
    /// discovery (mgmt Busy), holding none then (seen in the real-BlueZ rig right after a
    /// `StopDiscovery`). Stopping first ends a session we may hold; the second answer is
    /// the one that counts.
    private func startDiscovery(_ adapter: BlueZPath) async throws(BlueZError) {
        do {
            try await client.startDiscovery(adapter)
        } catch .inProgress {
            try? await client.stopDiscovery(adapter)
            try await client.startDiscovery(adapter)
        }
    }

    func resumeScanIfWanted() {
        guard scanFilter != nil, state == .poweredOn, !isScanningEverywhere else { return }
        Task { try? await applyScan() }
    }

    /// Our session on `adapter` went on or off.
    func setDiscovery(_ adapter: BlueZPath, _ on: Bool) {
        guard discovery.set(adapter, active: on, at: .now) else { return }
        emit(.discovering(adapter, on))
    }

    /// Follows the adapters in use, of `present` there: the sessions of adapters gone go with them.
    func followAdapters(_ paths: [BlueZPath], present: Int) {
        let gone = discovery.activePaths.filter { !paths.contains($0) }
        for adapter in gone { setDiscovery(adapter, false) }
        discovery.follow(paths, present: present)
        managementAdapters = Self.controllerIndices(paths)
    }

    func reportDiscovery(_ path: BlueZPath) {
        guard let filter = scanFilter, discovery.anyActive, isOnAdapterInUse(path), let device = device(path),
            let address = device.address
        else { return }
        let advertisement = AdvertisementData(
            localName: device.name, serviceUUIDs: device.uuids.compactMap(BluetoothUUID.init),
            manufacturerData: device.manufacturerData, serviceData: device.serviceData, txPower: device.txPower)
        guard filter.matches(advertisement) else { return }
        let peripheral = Peripheral(address: address, path: path, name: device.name)
        emit(
            .discovered(
                Discovery(
                    peripheral: peripheral, advertisement: advertisement, rssi: device.rssi,
                    isConnected: device.connected)))
    }
}

extension CentralManager {
    /// Passes on a device's advertisement data when it has any, from the adapters in use only.
    ///
    /// Runs for every advertisement of every device in range: a look at the update and at
    /// the path's parent, no view of the device.
    func reportAdvertisement(_ path: BlueZPath, _ update: AdvertisementUpdate) {
        guard !update.serviceData.isEmpty || !update.manufacturerData.isEmpty, isOnAdapterInUse(path),
            let address = path.deviceAddress
        else { return }
        emit(.advertised(address, path, update))
    }

    /// A new device object carries its first advertisement in its properties.
    func reportFirstAdvertisement(_ path: BlueZPath) {
        guard isOnAdapterInUse(path), let device = device(path) else { return }
        reportAdvertisement(
            path,
            AdvertisementUpdate(
                rssi: device.rssi, name: device.name, manufacturerData: device.manufacturerData,
                serviceData: device.serviceData))
    }
}
