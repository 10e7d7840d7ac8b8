import DBusCore

/// `Device1`: connecting, disconnecting, service resolution, removal.
extension Bluetoothd {
    func deviceInterface(_ device: DeviceState) -> ExportedInterface {
        let unsupported: @Sendable (isolated Bluetoothd, MethodCall) async throws -> [DBusValue] = { _, _ in
            throw BluetoothdError.notSupported
        }
        return ExportedInterface(
            name: BluetoothdAPI.device,
            methods: [
                method("Disconnect") { daemon, call in try await daemon.disconnect(call.path) },
                method("Connect") { daemon, call in try await daemon.connect(call.path) },
                method("ConnectProfile", in: "s", unsupported),
                method("DisconnectProfile", in: "s", unsupported),
                method("Pair", unsupported),
                method("CancelPairing") { _, _ in throw BluetoothdError.doesNotExist },
            ],
            properties: PropertyTables.device(device),
            setter: { [weak self] property, value, call in
                try await self?.setDeviceProperty(call.path, property, value)
            })
    }

    private func setDeviceProperty(_ path: ObjectPath, _ property: String, _ value: DBusValue) throws {
        guard devices[path] != nil else { throw BluetoothdError.doesNotExist }
        switch (property, value) {
        case ("Alias", .string(let alias)): devices[path]?.customAlias = alias.isEmpty ? nil : alias
        case ("Trusted", .boolean(let trusted)): devices[path]?.trusted = trusted
        default: break
        }
    }

    /// `Device1.Connect` over LE: `Connected=true`, the reply, then `ServicesResolved=true`.
    func connect(_ path: ObjectPath) async throws -> [DBusValue] {
        guard var device = devices[path] else { throw DBusError(name: DBusError.Name.unknownObject) }
        guard adapters[device.adapterName]?.powered == true else { throw BluetoothdError.notReady }
        switch device.link {
        case .up, .disconnecting: return []  // an LE Connect on a connected device succeeds at once
        case .connecting: throw BluetoothdError.connectAlreadyInProgress
        case .down: break
        }
        let address = device.address
        let failure = world.withState { FaultPlan.take(&$0.faults.connectFailures, address: address) }
        if failure == .inProgress { throw BluetoothdError.inProgress }
        if failure == .alreadyConnectedWithoutLink { throw BluetoothdError.alreadyConnected }
        device.temporary = false
        tasks.cancel("temporary:\(path)")
        device.attempts += 1
        let attempt = device.attempts
        device.link = .connecting(attempt: attempt)
        devices[path] = device
        let spec = peripheral(device.peripheral).spec
        if spec.connectHangs {
            // No answer until a Disconnect, a power-off or the end of bluetoothd cancels it.
            await withCheckedContinuation { hangingConnects[path] = $0 }
            throw BluetoothdError.connectionAbortedByLocal
        }
        guard spec.connectable, !isSilent(device.adapterName) else {
            // Nobody answers (or the controller hears nothing): the attempt times out and is
            // reported as aborted.
            try? await Task.sleep(for: timings.connectTimeout)
            if devices[path]?.link == .connecting(attempt: attempt) { linkDown(path) }
            throw BluetoothdError.connectionAbortedByLocal
        }
        try? await Task.sleep(for: timings.connect)
        guard running, devices[path]?.link == .connecting(attempt: attempt) else {
            throw BluetoothdError.connectionAbortedByLocal  // cancelled by Disconnect or power-off
        }
        devices[path]?.link = .up
        if failure == .abortedByLocal {
            // The link came up and dropped: Connected=true, the error, then Connected=false.
            change(path, BluetoothdAPI.device, [("Connected", .boolean(true))])
            schedule("link:\(path)", after: .milliseconds(30)) { daemon in
                daemon.linkLost(path, dropNotifySessions: false)
            }
            throw BluetoothdError.connectionAbortedByLocal
        }
        // BlueZ's connect race: the ATT connect marks the device connected without a signal.
        let race = world.withState { FaultPlan.take(&$0.faults.connectRaces, address: address) } != nil
        if announcesConnect, !race {
            change(path, BluetoothdAPI.device, [("Connected", .boolean(true))])
        } else {
            changeSilently(path, BluetoothdAPI.device, [("Connected", .boolean(true))])
        }
        if world.withState({ FaultPlan.take(&$0.faults.unresolvedServices, address: address) }) == nil {
            schedule("resolve:\(path)", after: timings.servicesResolved) { daemon in daemon.resolveServices(path) }
        }
        // Newer BlueZ: the link came up by another way meanwhile, and Connect says so.
        if failure == .alreadyConnected { throw BluetoothdError.alreadyConnected }
        return []
    }

    /// The GATT client is ready: `UUIDs`, `ServicesResolved=true` and the GAP name in one
    /// signal, then the GATT objects, then `Modalias` — the trace's order.
    func resolveServices(_ path: ObjectPath) {
        guard let current = devices[path], current.link == .up, !current.servicesResolved else { return }
        let state = peripheral(current.peripheral)
        let database = state.database
        // The peripheral's database changed while the link was down: its old objects go first.
        removeGattServices(path, current.gatt?.exportedServices(missingFrom: database) ?? [])
        guard var device = devices[path] else { return }
        let fresh = database.exportedServices(missingFrom: device.gatt)
        var changes: [(String, DBusValue)] = []
        if device.uuids != database.serviceUUIDs {
            device.uuids = database.serviceUUIDs
            changes.append(("UUIDs", .strings(device.uuids)))
        }
        changes.append(("ServicesResolved", .boolean(true)))
        if let gapName = state.spec.gapName, device.name != gapName {
            device.name = gapName
            changes.append(("Name", .string(gapName)))
            if device.customAlias == nil { changes.append(("Alias", .string(gapName))) }
        }
        device.servicesResolved = true
        device.gatt = database
        device.gattStale = false
        devices[path] = device
        change(path, BluetoothdAPI.device, changes)
        exportGattServices(path, fresh)
        if device.modalias == nil {
            devices[path]?.modalias = PropertyTables.modalias
            change(path, BluetoothdAPI.device, [("Modalias", .string(PropertyTables.modalias))])
        }
        // Notify sessions that outlived the last link are registered again by bluetoothd.
        for (characteristic, sessions) in device.notifySessions {
            for client in sessions.keys.sorted() { registerNotifySession(path, characteristic, client) }
        }
    }

    /// `Device1.Disconnect`: `ServicesResolved=false`, the reply, then `Connected=false`.
    func disconnect(_ path: ObjectPath) async throws -> [DBusValue] {
        guard let device = devices[path] else { throw DBusError(name: DBusError.Name.unknownObject) }
        switch device.link {
        case .down, .disconnecting:
            return []
        case .connecting:
            // Cancels the pending Connect, which fails.
            linkDown(path)
            return []
        case .up:
            break
        }
        devices[path]?.link = .disconnecting
        tasks.cancel("resolve:\(path)")
        try? await Task.sleep(for: timings.disconnect)
        guard devices[path]?.link == .disconnecting else { return [] }
        if devices[path]?.servicesResolved == true {
            devices[path]?.servicesResolved = false
            change(path, BluetoothdAPI.device, [("ServicesResolved", .boolean(false))])
        }
        schedule("link:\(path)", after: timings.disconnectSettle) { daemon in
            guard daemon.devices[path]?.link == .disconnecting else { return }
            daemon.linkDown(path)
            daemon.change(path, BluetoothdAPI.device, [("Connected", .boolean(false))])
        }
        return []
    }

    /// The link dropped under the device (remote disconnect, power-off): one signal with
    /// `ServicesResolved=false` and `Connected=false`.
    func linkLost(_ path: ObjectPath, dropNotifySessions: Bool) {
        guard let device = devices[path], device.link != .down else { return }
        var changes: [(String, DBusValue)] = []
        if device.servicesResolved { changes.append(("ServicesResolved", .boolean(false))) }
        if device.connectedProperty { changes.append(("Connected", .boolean(false))) }
        linkDown(path)
        change(path, BluetoothdAPI.device, changes)
        if dropNotifySessions {
            for characteristic in device.notifying.sorted() {
                change(characteristic, BluetoothdAPI.characteristic, [("Notifying", .boolean(false))])
            }
            devices[path]?.notifySessions = [:]
            devices[path]?.notifying = []
        }
    }

    /// Marks the link down: timers stop, the peripheral stops notifying this link, notify
    /// sessions wait for the next connection, and the device is temporary again.
    func linkDown(_ path: ObjectPath) {
        guard var device = devices[path] else { return }
        tasks.cancel("resolve:\(path)")
        tasks.cancel("link:\(path)")
        hangingConnects.removeValue(forKey: path)?.resume()
        device.link = .down
        device.servicesResolved = false
        for characteristic in device.notifySessions.keys {
            device.notifySessions[characteristic] = device.notifySessions[characteristic]?.mapValues { _ in false }
            unsubscribe(characteristic)
        }
        device.temporary = true
        devices[path] = device
        armTemporaryTimer(path)
    }

    /// Removes a temporary device `TemporaryTimeout` after it was last seen.
    func armTemporaryTimer(_ path: ObjectPath) {
        schedule("temporary:\(path)", after: timings.temporaryTimeout) { daemon in
            guard let device = daemon.devices[path], device.temporary, device.link == .down else { return }
            daemon.removeDevice(path, announceLinkLoss: false)
        }
    }

    /// `Adapter1.RemoveDevice`.
    func removeDevice(adapter name: String, _ path: ObjectPath) async throws -> [DBusValue] {
        guard let device = devices[path], device.adapterName == name else { throw BluetoothdError.doesNotExist }
        guard adapters[name]?.powered == true else { throw BluetoothdError.notReady }
        if device.link != .down {
            // bluetoothd disconnects first (ServicesResolved=false, Connected=false), then removes.
            _ = try await disconnect(path)
            tasks.cancel("link:\(path)")
            if devices[path]?.link == .disconnecting {
                linkDown(path)
                change(path, BluetoothdAPI.device, [("Connected", .boolean(false))])
            }
        }
        removeDevice(path, announceLinkLoss: false)
        return []
    }

    /// Removes a device object with its GATT objects (children first, as bluetoothd does).
    func removeDevice(_ path: ObjectPath, announceLinkLoss: Bool) {
        guard let device = devices[path] else { return }
        if announceLinkLoss { linkLost(path, dropNotifySessions: true) }
        for characteristic in device.notifySessions.keys { unsubscribe(characteristic) }
        if let gatt = device.gatt { removeGattServices(path, gatt.services.filter(\.exported)) }
        for key in ["resolve:", "link:", "temporary:"] { tasks.cancel(key + path.rawValue) }
        devices[path] = nil
        devicesByPeripheral[device.peripheral]?.remove(path)
        adapters[device.adapterName]?.found.remove(path)
        unexport(path)
    }
}
