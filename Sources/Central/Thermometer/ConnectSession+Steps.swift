import BlueZClient
import SensorModel
import ThermometerProfiles

/// The session's work on the link: finding the device, connecting, subscribing, watching.
extension ConnectSession {
    /// Runs `operation` in a task of its own and waits for it, cancelled with the caller.
    ///
    /// A task keeps the memory of its deepest call chain until it ends; the session task
    /// lives for hours, so the deep part of its work (connecting, GATT discovery) runs and
    /// ends in a task of its own.
    static func inOwnTask<T: Sendable>(
        _ monitor: isolated ThermometerMonitor,
        _ operation: @escaping @Sendable (isolated ThermometerMonitor) async throws -> T
    ) async throws -> T {
        let task = Task { try await operation(monitor) }
        return try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            task.cancel()
        }
    }

    /// Waits for the adapter to be on (never spinning on `NotReady`); false when cancelled.
    ///
    /// The central is on while any adapter in use is powered (its primary is the first
    /// powered one), so a session never waits for a dead adapter while another is on.
    func waitForPower(_ monitor: isolated ThermometerMonitor) async -> Bool {
        await monitor.central.wait(timeout: nil) { central in central.state == .poweredOn ? true : nil } ?? false
    }

    /// The thermometer's device object; while it is missing, scan for it and
    /// restart the scan every `rescanInterval`.
    func findDevice(_ monitor: isolated ThermometerMonitor) async -> Peripheral? {
        if let peripheral = knownPeripheral(monitor) { return peripheral }
        let central = monitor.central
        monitor.awaitingDevice.insert(address)
        monitor.reconcileScan()
        // Checked only after changes of that device (or global ones), not every advertisement.
        let scope = await central.expectedDevicePath(address)
        let links = monitor.configuration.maxConnections
        let found = await central.wait(timeout: monitor.configuration.rescanInterval, device: scope) {
            [address] central in
            central.knownDevicePath(address, linksPerAdapter: links)
        }
        guard let path = found else {
            try? await central.restartScan()
            return nil
        }
        monitor.awaitingDevice.remove(address)
        monitor.reconcileScan()
        return Peripheral(address: address, path: path, name: monitor.devices.name(of: address))
    }

    /// The thermometer's device object, looked up by its path (never by walking every device);
    /// with several adapters, on the one that owns it if that one has a free link.
    private func knownPeripheral(_ monitor: isolated ThermometerMonitor) -> Peripheral? {
        let links = monitor.configuration.maxConnections
        let path = monitor.central.assumeIsolated { [address] in $0.knownDevicePath(address, linksPerAdapter: links) }
        return path.map { Peripheral(address: address, path: $0, name: monitor.devices.name(of: address)) }
    }

    /// Connects (unless already up), finds the temperature characteristic by
    /// UUID, reads it and the user descriptions, and subscribes.
    ///
    /// Fails with ``CentralError/disconnected`` if the link drops on the way, or dropped
    /// since `replacedAt` (the disconnect count at a GATT replacement that left the link
    /// reported up): a link that went and came back while this waited its turn must be
    /// reported lost, not taken for the same link.
    func connectAndSubscribe(
        _ found: Peripheral, since replacedAt: Int?, _ monitor: isolated ThermometerMonitor
    ) async throws -> (Peripheral, Characteristic) {
        let (central, log) = (monitor.central, monitor.log)
        let before = if let replacedAt { replacedAt } else { await central.disconnectCount(found.path) }
        log.debug("thermometer \(found.address): connecting (unless the link is up)")
        let (peripheral, epoch) = try await connectPausingScan(found, since: before, monitor)
        log.debug("thermometer \(peripheral.address): link up; waiting for the thermometer service")
        let (characteristic, profile) = try await findTemperature(peripheral, epoch: epoch, monitor)
        log.debug("thermometer \(peripheral.address): reading and subscribing to \(characteristic.path)")
        await describe(peripheral, characteristic, monitor)
        monitor.streams[characteristic.path] = ThermometerStream(
            address: peripheral.address, profile: profile, lastValue: .now)
        try await monitor.readAndReport(characteristic.path)
        try await central.setNotifyValue(true, for: characteristic)
        monitor.streams[characteristic.path]?.connectEcho.notificationsStarted(at: .now)
        let name = monitor.devices.name(of: peripheral.address)
        log.notice("connected to \(name ?? "thermometer") \(peripheral.address)")
        monitor.report(.connected(peripheral.address, name: name))
        await syncCurrentTime(peripheral, monitor)
        return (peripheral, characteristic)
    }

    /// The first temperature characteristic of a known profile; waits for the
    /// GATT objects when they are not (yet, or again) exported.
    private func findTemperature(
        _ peripheral: Peripheral, epoch: Int, _ monitor: isolated ThermometerMonitor
    ) async throws -> (Characteristic, any ThermometerProfile) {
        let profiles = monitor.configuration.profiles
        let found = await monitor.central.wait(timeout: monitor.configuration.serviceTimeout, device: peripheral.path) {
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
    private func describe(
        _ peripheral: Peripheral, _ characteristic: Characteristic, _ monitor: isolated ThermometerMonitor
    ) async {
        let userDescription = BluetoothUUID(UInt16(0x2901))
        for descriptor in await monitor.central.discoverDescriptors(for: characteristic)
        where descriptor.uuid == userDescription {
            guard let bytes = try? await monitor.central.readValue(for: descriptor) else { continue }
            monitor.log.info("thermometer \(peripheral.address): \(String(decoding: bytes, as: UTF8.self))")
        }
    }

    /// Waits until the stream is lost; the data watchdog is the last resort.
    func watch(
        _ peripheral: Peripheral, _ characteristic: Characteristic, _ monitor: isolated ThermometerMonitor
    ) async -> StreamLoss {
        let (central, dataTimeout) = (monitor.central, monitor.configuration.dataTimeout)
        let path = peripheral.path
        let epoch = await central.disconnectCount(path)
        while !Task.isCancelled {
            let loss = await central.wait(timeout: dataTimeout, device: path) { central -> StreamLoss? in
                guard central.state == .poweredOn else { return .adapterOff(central.state) }
                guard central.hasDevice(path) else { return .removed }
                if central.disconnects[path, default: 0] != epoch { return .disconnected }
                return central.exists(characteristic) ? nil : .gattReplaced
            }
            if let loss { return loss }
            // A link held for days still has its clock set daily (`sensor_clock_sync`).
            await syncCurrentTime(peripheral, monitor, onlyWhenDue: true)
            guard let last = monitor.streams[characteristic.path]?.lastValue else { return .gattReplaced }
            if ContinuousClock.now - last >= dataTimeout { return .silent }
        }
        return .disconnected
    }
}
