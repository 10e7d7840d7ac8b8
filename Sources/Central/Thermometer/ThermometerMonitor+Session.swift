import BlueZClient
import SensorModel
import ThermometerProfiles

/// Why a subscribed thermometer stopped delivering.
enum StreamLoss: Equatable {
    case adapterOff(AdapterState)
    case disconnected
    case removed
    case gattReplaced
    case silent

    var reason: String {
        switch self {
        case .adapterOff(.resetting), .adapterOff(.unsupported): "bluetoothd went away"
        case .adapterOff(let state): "adapter \(state.rawValue)"
        case .disconnected: "link lost"
        case .removed: "device removed by BlueZ"
        case .gattReplaced: "GATT service replaced (peripheral app restarted)"
        case .silent: "no data for too long"
        }
    }
}

extension ThermometerMonitor {
    /// One thermometer's life: connect, stream, and recover, until cancelled.
    func runSession(_ address: BluetoothAddress, token: UInt64) async {
        await sessionLoop(address)
        // A session forgotten with its device gave up its place then; a new one may hold it now.
        guard sessionTokens[address] == token else { return }
        releaseSlot(address)
    }

    private func sessionLoop(_ address: BluetoothAddress) async {
        var failures = 0
        // A GATT replacement keeps the link reported up (the app restarts on it); if what
        // follows is not the new service but the link, the device or the adapter going
        // away (BlueZ removes an adapter's GATT objects before its devices), that is
        // reported once it is seen: before waiting for power, again before connecting, and
        // by the connection itself, which counts link drops from the replacement on (the
        // adapter may go and come back while the session waits its turn).
        var linkReported = false
        var replacedAt: Int?  // the device's disconnect count at the replacement
        func checkReplacedLink() {
            if let since = replacedAt, reportLinkLoss(address, since: since) {
                (linkReported, replacedAt) = (false, nil)
            }
        }
        while !Task.isCancelled {
            checkReplacedLink()
            guard await waitForPower() else { return }
            guard let peripheral = await findDevice(address) else { continue }
            checkReplacedLink()
            do {
                let characteristic = try await inOwnTask { [replacedAt] in
                    try await $0.connectAndSubscribe(peripheral, since: replacedAt)
                }
                failures = 0
                linkReported = true
                replacedAt = nil
                markWorked(peripheral)
                let loss = await watch(peripheral, characteristic)
                streams[characteristic.path] = nil
                releaseSlot(address)
                // Shutting down (the monitor cancels its sessions) loses nothing worth reporting.
                guard !Task.isCancelled else { return }
                log.notice("thermometer \(address): \(loss.reason)")
                if loss == .gattReplaced {
                    replacedAt = await central.disconnectCount(peripheral.path)
                    continue
                }
                report(.disconnected(address, reason: loss.reason))
                linkReported = false
                if loss == .silent { await central.cancelPeripheralConnection(peripheral) }
            } catch CentralError.bluez(.busy(let message)) {
                // Back-pressure from the D-Bus budget, not the thermometer's fault: no backoff.
                releaseSlot(address)
                log.info("thermometer \(address): D-Bus busy (\(message)), trying again")
            } catch {
                // Ended (shutdown, or the device forgotten): nothing failed.
                guard !Task.isCancelled else { return }
                if linkReported {
                    report(.disconnected(address, reason: "\(error)"))
                    (linkReported, replacedAt) = (false, nil)
                }
                failures += 1
                log.warning("thermometer \(address): \(error) (attempt \(failures))")
                // The pending connect is cancelled before the next thermometer's attempt starts.
                await recover(from: error, peripheral)
                releaseSlot(address)
            }
            let delay = configuration.reconnect.delay(attempt: max(failures, 1), using: &random)
            log.debug("thermometer \(address): next attempt in \(delay)")
            try? await central.executor.sleep(for: delay)
        }
    }

    /// Runs `operation` in a task of its own and waits for it, cancelled with the caller.
    ///
    /// A task keeps the memory of its deepest call chain until it ends; the session task
    /// lives for hours, so the deep part of its work (connecting, GATT discovery) runs and
    /// ends in a task of its own.
    private func inOwnTask<T: Sendable>(
        _ operation: @escaping @Sendable (isolated ThermometerMonitor) async throws -> T
    ) async throws -> T {
        let task = Task { try await operation(self) }
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }

    private func recover(from error: any Error, _ peripheral: Peripheral) async {
        switch error as? CentralError {
        case .peripheralGone?:
            awaitingDevice.insert(peripheral.address)
            reconcileScan()
        case .bluez(.inProgress)?, .bluez(.alreadyConnected)?, .servicesNotResolved?, .notFound?, .timeout?:
            // A pending or half-done connect: Disconnect cancels it before the retry.
            await central.cancelPeripheralConnection(peripheral)
        default:
            break
        }
    }

    /// Reports `disconnected` when the link a GATT replacement left up is gone, or went down
    /// since the replacement (`since`: the device's disconnect count then); true if it did.
    private func reportLinkLoss(_ address: BluetoothAddress, since: Int) -> Bool {
        guard let gone = linkGone(address, since: since) else { return false }
        report(.disconnected(address, reason: gone.reason))
        return true
    }

    /// Why the link a GATT replacement left up is gone, or nil while it is up (the adapter
    /// powered, the device there and connected, its link not dropped since `since`).
    private func linkGone(_ address: BluetoothAddress, since: Int) -> StreamLoss? {
        central.assumeIsolated { central -> StreamLoss? in
            guard central.state == .poweredOn else { return .adapterOff(central.state) }
            guard let path = central.knownDevicePath(address) else { return .removed }
            guard central.disconnectCount(path) == since else { return .disconnected }
            return central.isConnected(path) ? nil : .disconnected
        }
    }

    /// Waits for the adapter to be on (never spinning on `NotReady`); false when cancelled.
    private func waitForPower() async -> Bool {
        await central.wait(timeout: nil) { central in central.state == .poweredOn ? true : nil } ?? false
    }

    /// The thermometer's device object; while it is missing, scan for it and
    /// restart the scan every `rescanInterval`.
    private func findDevice(_ address: BluetoothAddress) async -> Peripheral? {
        if let peripheral = knownPeripheral(address) { return peripheral }
        awaitingDevice.insert(address)
        reconcileScan()
        // Checked only after changes of that device (or global ones), not every advertisement.
        let scope = await central.expectedDevicePath(address)
        let found = await central.wait(timeout: configuration.rescanInterval, device: scope) { central in
            central.knownDevicePath(address)
        }
        guard let path = found else {
            try? await central.restartScan()
            return nil
        }
        awaitingDevice.remove(address)
        reconcileScan()
        return Peripheral(address: address, path: path, name: devices.name(of: address))
    }

    /// The thermometer's device object, looked up by its path (never by walking every device).
    private func knownPeripheral(_ address: BluetoothAddress) -> Peripheral? {
        let path = central.assumeIsolated { $0.knownDevicePath(address) }
        return path.map { Peripheral(address: address, path: $0, name: devices.name(of: address)) }
    }

    /// Connects (unless already up), finds the temperature characteristic by
    /// UUID, reads it and the user descriptions, and subscribes.
    ///
    /// Fails with ``CentralError/disconnected`` if the link drops on the way, or dropped
    /// since `replacedAt` (the disconnect count at a GATT replacement that left the link
    /// reported up): a link that went and came back while this waited its turn must be
    /// reported lost, not taken for the same link.
    private func connectAndSubscribe(_ peripheral: Peripheral, since replacedAt: Int?) async throws
        -> Characteristic
    {
        let epoch = if let replacedAt { replacedAt } else { await central.disconnectCount(peripheral.path) }
        log.debug("thermometer \(peripheral.address): connecting (unless the link is up)")
        try await connectPausingScan(peripheral)
        log.debug("thermometer \(peripheral.address): link up; waiting for the thermometer service")
        let (characteristic, profile) = try await findTemperature(peripheral, epoch: epoch)
        log.debug("thermometer \(peripheral.address): reading and subscribing to \(characteristic.path)")
        await describe(peripheral, characteristic)
        streams[characteristic.path] = ThermometerStream(address: peripheral.address, profile: profile, lastValue: .now)
        try await readAndReport(characteristic.path)
        try await central.setNotifyValue(true, for: characteristic)
        streams[characteristic.path]?.connectEcho.notificationsStarted(at: .now)
        let name = devices.name(of: peripheral.address)
        log.notice("connected to \(name ?? "thermometer") \(peripheral.address)")
        report(.connected(peripheral.address, name: name))
        return characteristic
    }

    /// Connects with our scan paused (the link and GATT discovery need the radio; reads
    /// and subscribing on a live link do not).
    ///
    /// The attempt waits its turn (`maxConnecting`, `maxConnections`); a `Connect` that hangs
    /// holds it for `connectTimeout` at most.
    private func connectPausingScan(_ peripheral: Peripheral) async throws {
        await beginConnect()
        defer { endConnect() }
        try await takeConnectSlot(peripheral.address)
        try Task.checkCancellation()
        try await central.connect(peripheral, timeout: configuration.connectTimeout)
        connectionEstablished(peripheral.address)
    }

    /// The first temperature characteristic of a known profile; waits for the
    /// GATT objects when they are not (yet, or again) exported.
    private func findTemperature(_ peripheral: Peripheral, epoch: Int) async throws -> (
        Characteristic, any ThermometerProfile
    ) {
        let profiles = configuration.profiles
        let found = await central.wait(timeout: configuration.serviceTimeout, device: peripheral.path) {
            central -> Result<(Characteristic, any ThermometerProfile), CentralError>? in
            guard central.state == .poweredOn else { return .failure(.notPoweredOn(central.state)) }
            guard central.hasDevice(peripheral.path) else { return .failure(.peripheralGone) }
            if central.disconnects[peripheral.path, default: 0] != epoch { return .failure(.disconnected) }
            for service in central.currentServices(profiles.allServiceUUIDs, of: peripheral) {
                guard let uuid = service.uuid, let profile = profiles.profile(forService: uuid) else { continue }
                let candidates = central.currentCharacteristics(profile.temperatureCharacteristicUUIDs, of: service)
                if let characteristic = candidates.first { return .success((characteristic, profile)) }
            }
            return nil
        }
        guard let found else { throw CentralError.notFound("thermometer service on \(peripheral.address)") }
        return try found.get()
    }

    /// Logs the characteristic's 0x2901 user description (e.g. "CPU Temperature").
    private func describe(_ peripheral: Peripheral, _ characteristic: Characteristic) async {
        let userDescription = BluetoothUUID(UInt16(0x2901))
        for descriptor in await central.discoverDescriptors(for: characteristic)
        where descriptor.uuid == userDescription {
            guard let bytes = try? await central.readValue(for: descriptor) else { continue }
            log.info("thermometer \(peripheral.address): \(String(decoding: bytes, as: UTF8.self))")
        }
    }

    /// Waits until the stream is lost; the data watchdog is the last resort.
    private func watch(_ peripheral: Peripheral, _ characteristic: Characteristic) async -> StreamLoss {
        let path = peripheral.path
        let epoch = await central.disconnectCount(path)
        while !Task.isCancelled {
            let loss = await central.wait(timeout: configuration.dataTimeout, device: path) {
                central -> StreamLoss? in
                guard central.state == .poweredOn else { return .adapterOff(central.state) }
                guard central.hasDevice(path) else { return .removed }
                if central.disconnects[path, default: 0] != epoch { return .disconnected }
                return central.exists(characteristic) ? nil : .gattReplaced
            }
            if let loss { return loss }
            guard let last = streams[characteristic.path]?.lastValue else { return .gattReplaced }
            if ContinuousClock.now - last >= configuration.dataTimeout { return .silent }
        }
        return .disconnected
    }
}
