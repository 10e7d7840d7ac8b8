public import BlueZClient

extension CentralManager {
    /// Connects and waits for GATT services to be resolved.
    ///
    /// Our scan is stopped first (connecting while scanning is less reliable).
    /// `timeout` bounds the `Connect` call and, separately, the wait for
    /// `ServicesResolved`, which races `Connected=false` and the device's
    /// removal. BlueZ may never signal `Connected=true` (its connect race), so
    /// the reply is trusted and the property read back instead.
    public func connect(_ peripheral: Peripheral, timeout: Duration = .seconds(10)) async throws(CentralError) {
        guard state == .poweredOn else { throw .notPoweredOn(state) }
        guard let device = device(peripheral.path) else { throw .peripheralGone }
        await stopScan()
        try checkAdapterPowered(peripheral.path)
        if !(device.connected && device.servicesResolved) {
            let epoch = disconnects[peripheral.path, default: 0]
            do {
                try await client.connect(peripheral.path, timeout: timeout)
            } catch .alreadyConnected(let message) {
                // Newer BlueZ: the link is up already (autoconnect, another client); trusted
                // when the device says it is connected, as after a successful Connect.
                guard (try? await client.refreshConnected(peripheral.path)) == true else {
                    throw .bluez(.alreadyConnected(message))
                }
            } catch {
                throw Self.map(error)
            }
            _ = try? await client.refreshConnected(peripheral.path)
            try await waitForServices(peripheral.path, since: epoch, timeout: timeout)
        }
    }

    /// Throws ``CentralError/adapterOff(_:)`` when several adapters are in use and the one
    /// `path` is under is switched off.
    ///
    /// Switching an adapter off, the kernel drops its links before bluetoothd announces
    /// `Powered=false` (0.4 s later under the e2e rig's load), so a reconnect may pick the
    /// device object there, and the announcement may come while our scan stops. Seen on
    /// real BlueZ: a `Connect` through the switched-off adapter, an `Input/output error` and
    /// a backoff before the other adapter was tried (Tests/E2E/README.md, scenario 12).
    private func checkAdapterPowered(_ path: BlueZPath) throws(CentralError) {
        guard ownership != nil, let adapter = discovery.entries.first(where: { path.isChild(of: $0.path) })?.path,
            !isPowered(adapter)
        else { return }
        throw .adapterOff(adapter.lastElement)
    }

    /// Disconnects (also cancels a pending connect).
    public func cancelPeripheralConnection(_ peripheral: Peripheral) async {
        try? await client.disconnect(peripheral.path)
    }

    /// How many times the device's link went down (or its object vanished) so far:
    /// compare two readings to tell a fresh drop from a stale property.
    public func disconnectCount(_ path: BlueZPath) -> Int { disconnects[path, default: 0] }

    /// Whether the peripheral is connected with its services resolved.
    public func isReady(_ peripheral: Peripheral) -> Bool {
        guard let device = device(peripheral.path) else { return false }
        return device.servicesResolved
    }

    private func waitForServices(_ path: BlueZPath, since epoch: Int, timeout: Duration) async throws(CentralError) {
        let outcome = await wait(timeout: timeout, device: path) { central -> Result<Void, CentralError>? in
            guard central.state == .poweredOn else { return .failure(.notPoweredOn(central.state)) }
            guard central.hasDevice(path) else { return .failure(.peripheralGone) }
            if central.disconnects[path, default: 0] != epoch { return .failure(.disconnected) }
            return central.servicesResolved(path) ? .success(()) : nil
        }
        switch outcome {
        case .success?: return
        case .failure(let error)?: throw error
        case nil:
            try? await client.disconnect(path)
            throw .servicesNotResolved
        }
    }

    static func map(_ error: BlueZError) -> CentralError {
        switch error {
        case .unknownObject: .peripheralGone
        case .timeout(let message): .timeout(message)
        default: .bluez(error)
        }
    }
}
