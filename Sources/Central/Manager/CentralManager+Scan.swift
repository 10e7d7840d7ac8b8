import BlueZClient
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
    /// Starts scanning; discoveries arrive as ``CentralEvent/discovered(_:)``.
    ///
    /// The BlueZ filter is only `Transport=le` (with duplicates, so RSSI
    /// updates keep coming): BlueZ merges filters across clients and a name
    /// cannot be filtered there, so matching happens here. The scan resumes
    /// by itself after bluetoothd restarts or the adapter comes back on.
    public func scanForPeripherals(matching filter: ScanFilter) async throws(CentralError) {
        scanFilter = filter
        try await applyScan()
        // Devices heard in this discovery already (another client scans): a cheap property
        // check first, views only for those (BlueZ may know ten thousand devices).
        guard let adapter = adapterPath else { return }
        for path in mirror({ $0.advertisingDevices(on: adapter) }) { reportDiscovery(path) }
    }

    /// Stops our scan (BlueZ keeps scanning while other clients hold sessions).
    public func stopScan() async {
        scanFilter = nil
        guard discoveryActive, let adapter = adapterPath else { return }
        discoveryActive = false
        try? await client.stopDiscovery(adapter)
    }

    /// Stops and starts our discovery session again (a fresh scan window:
    /// some controllers report each advertiser once per scan).
    public func restartScan() async throws(CentralError) {
        guard scanFilter != nil, discoveryActive, let adapter = adapterPath else { return }
        discoveryActive = false
        try? await client.stopDiscovery(adapter)
        try await applyScan()
    }

    /// Whether we hold a discovery session.
    public var isScanning: Bool { discoveryActive }

    func applyScan() async throws(CentralError) {
        guard scanFilter != nil, !discoveryActive else { return }
        guard state == .poweredOn, let adapter = adapterPath else { throw .notPoweredOn(state) }
        do {
            try await client.setDiscoveryFilter(adapter, DiscoveryFilter(transport: "le", duplicateData: true))
            try await startDiscovery(adapter)
            discoveryActive = true
        } catch {
            throw .bluez(error)
        }
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
        guard scanFilter != nil, state == .poweredOn else { return }
        Task { try? await applyScan() }
    }

    func reportDiscovery(_ path: BlueZPath) {
        guard let filter = scanFilter, discoveryActive, let device = device(path),
            device.adapter == nil || device.adapter == adapterPath, let address = device.address
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
    /// Passes on a device's advertisement data when it has any, from our adapter only.
    ///
    /// Runs for every advertisement of every device in range: a look at the update and at
    /// the path's parent, no view of the device.
    func reportAdvertisement(_ path: BlueZPath, _ update: AdvertisementUpdate) {
        guard !update.serviceData.isEmpty || !update.manufacturerData.isEmpty, isOnOurAdapter(path),
            let address = path.deviceAddress
        else { return }
        emit(.advertised(address, path, update))
    }

    /// A new device object carries its first advertisement in its properties.
    func reportFirstAdvertisement(_ path: BlueZPath) {
        guard isOnOurAdapter(path), let device = device(path) else { return }
        reportAdvertisement(
            path,
            AdvertisementUpdate(
                rssi: device.rssi, name: device.name, manufacturerData: device.manufacturerData,
                serviceData: device.serviceData))
    }

    private func isOnOurAdapter(_ path: BlueZPath) -> Bool {
        guard let adapter = adapterPath else { return false }
        return path.isChild(of: adapter)
    }
}
