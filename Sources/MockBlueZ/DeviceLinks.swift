import DBusCore

/// `Device1`: connecting, disconnecting, service resolution, removal.
enum DeviceLinks {
    static func deviceInterface(_ daemon: isolated Bluetoothd, _ device: DeviceState) -> ExportedInterface {
        let unsupported: @Sendable (isolated Bluetoothd, MethodCall) async throws -> [DBusValue] = { _, _ in
            throw BluetoothdError.notSupported
        }
        return ExportedInterface(
            name: BluetoothdAPI.device,
            methods: [
                daemon.method("Disconnect") { daemon, call in try await disconnect(daemon, call.path) },
                daemon.method("Connect") { daemon, call in try await connect(daemon, call.path) },
                daemon.method("ConnectProfile", in: "s", unsupported),
                daemon.method("DisconnectProfile", in: "s", unsupported),
                daemon.method("Pair", unsupported),
                daemon.method("CancelPairing") { _, _ in throw BluetoothdError.doesNotExist },
            ],
            properties: PropertyTables.device(device),
            setter: { [weak daemon] property, value, call in
                guard let daemon else { return }
                try await setDeviceProperty(daemon, call.path, property, value)
            })
    }

    private static func setDeviceProperty(
        _ daemon: isolated Bluetoothd, _ path: ObjectPath, _ property: String, _ value: DBusValue
    ) throws {
        guard daemon.devices[path] != nil else { throw BluetoothdError.doesNotExist }
        switch (property, value) {
        case ("Alias", .string(let alias)): daemon.devices[path]?.customAlias = alias.isEmpty ? nil : alias
        case ("Trusted", .boolean(let trusted)): daemon.devices[path]?.trusted = trusted
        default: break
        }
    }

    /// `Device1.Connect` over LE: `Connected=true`, the reply, then `ServicesResolved=true`.
    static func connect(_ daemon: isolated Bluetoothd, _ path: ObjectPath) async throws -> [DBusValue] {
        guard var device = daemon.devices[path] else { throw DBusError(name: DBusError.Name.unknownObject) }
        guard daemon.adapters[device.adapterName]?.powered == true else { throw BluetoothdError.notReady }
        switch device.link {
        case .up, .disconnecting: return []  // an LE Connect on a connected device succeeds at once
        case .connecting: throw BluetoothdError.connectAlreadyInProgress
        case .down: break
        }
        let address = device.address
        let failure = daemon.world.withState { FaultPlan.take(&$0.faults.connectFailures, address: address) }
        if failure == .inProgress { throw BluetoothdError.inProgress }
        if failure == .alreadyConnectedWithoutLink { throw BluetoothdError.alreadyConnected }
        device.temporary = false
        daemon.tasks.cancel("temporary:\(path)")
        device.attempts += 1
        let attempt = device.attempts
        device.link = .connecting(attempt: attempt)
        daemon.devices[path] = device
        let spec = daemon.peripheral(device.peripheral).spec
        if spec.connectHangs {
            // No answer until a Disconnect, a power-off or the end of bluetoothd cancels it.
            await withCheckedContinuation { daemon.hangingConnects[path] = $0 }
            throw BluetoothdError.connectionAbortedByLocal
        }
        guard spec.connectable, !FaultActions.isSilent(daemon, device.adapterName),
            FaultActions.isInRange(daemon, device.adapterName, peripheral: device.peripheral)
        else {
            // Nobody answers (the controller hears nothing, or the peripheral is out of its
            // range): the kernel gives the LE connection up and bluetoothd reports it aborted.
            try? await Task.sleep(for: daemon.timings.connectTimeout)
            if daemon.devices[path]?.link == .connecting(attempt: attempt) { linkDown(daemon, path) }
            throw BluetoothdError.connectionAbortedByLocal
        }
        try? await Task.sleep(for: daemon.timings.connect)
        guard daemon.running, daemon.devices[path]?.link == .connecting(attempt: attempt) else {
            throw BluetoothdError.connectionAbortedByLocal  // cancelled by Disconnect or power-off
        }
        daemon.devices[path]?.link = .up
        if failure == .abortedByLocal {
            // The link came up and dropped: Connected=true, the error, then Connected=false.
            daemon.change(path, BluetoothdAPI.device, [("Connected", .boolean(true))])
            daemon.schedule("link:\(path)", after: .milliseconds(30)) { daemon in
                linkLost(daemon, path, dropNotifySessions: false)
            }
            throw BluetoothdError.connectionAbortedByLocal
        }
        // BlueZ's connect race: the ATT connect marks the device connected without a signal.
        let race = daemon.world.withState { FaultPlan.take(&$0.faults.connectRaces, address: address) } != nil
        if daemon.announcesConnect, !race {
            daemon.change(path, BluetoothdAPI.device, [("Connected", .boolean(true))])
        } else {
            daemon.changeSilently(path, BluetoothdAPI.device, [("Connected", .boolean(true))])
        }
        if daemon.world.withState({ FaultPlan.take(&$0.faults.unresolvedServices, address: address) }) == nil {
            daemon.schedule("resolve:\(path)", after: daemon.timings.servicesResolved) { daemon in
                resolveServices(daemon, path)
            }
        }
        // Newer BlueZ: the link came up by another way meanwhile, and Connect says so.
        if failure == .alreadyConnected { throw BluetoothdError.alreadyConnected }
        return []
    }

    /// The GATT client is ready: `UUIDs`, `ServicesResolved=true` and the GAP name in one
    /// signal, then the GATT objects, then `Modalias` — the trace's order.
    static func resolveServices(_ daemon: isolated Bluetoothd, _ path: ObjectPath) {
        guard let current = daemon.devices[path], current.link == .up, !current.servicesResolved else { return }
        let state = daemon.peripheral(current.peripheral)
        let database = state.database
        // The peripheral's database changed while the link was down: its old objects go first.
        GattServer.removeGattServices(daemon, path, current.gatt?.exportedServices(missingFrom: database) ?? [])
        guard var device = daemon.devices[path] else { return }
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
        daemon.devices[path] = device
        daemon.change(path, BluetoothdAPI.device, changes)
        GattServer.exportGattServices(daemon, path, fresh)
        if device.modalias == nil {
            daemon.devices[path]?.modalias = PropertyTables.modalias
            daemon.change(path, BluetoothdAPI.device, [("Modalias", .string(PropertyTables.modalias))])
        }
        // Notify sessions that outlived the last link are registered again by bluetoothd.
        for (characteristic, sessions) in device.notifySessions {
            for client in sessions.keys.sorted() {
                GattServer.registerNotifySession(daemon, path, characteristic, client)
            }
        }
    }

    /// `Device1.Disconnect`: `ServicesResolved=false`, the reply, then `Connected=false`.
    static func disconnect(_ daemon: isolated Bluetoothd, _ path: ObjectPath) async throws -> [DBusValue] {
        guard let device = daemon.devices[path] else { throw DBusError(name: DBusError.Name.unknownObject) }
        switch device.link {
        case .down, .disconnecting:
            return []
        case .connecting:
            // Cancels the pending Connect, which fails.
            linkDown(daemon, path)
            return []
        case .up:
            break
        }
        daemon.devices[path]?.link = .disconnecting
        daemon.tasks.cancel("resolve:\(path)")
        try? await Task.sleep(for: daemon.timings.disconnect)
        guard daemon.devices[path]?.link == .disconnecting else { return [] }
        if daemon.devices[path]?.servicesResolved == true {
            daemon.devices[path]?.servicesResolved = false
            daemon.change(path, BluetoothdAPI.device, [("ServicesResolved", .boolean(false))])
        }
        daemon.schedule("link:\(path)", after: daemon.timings.disconnectSettle) { daemon in
            guard daemon.devices[path]?.link == .disconnecting else { return }
            linkDown(daemon, path)
            daemon.change(path, BluetoothdAPI.device, [("Connected", .boolean(false))])
        }
        return []
    }

    /// The link dropped under the device (remote disconnect, power-off): one signal with
    /// `ServicesResolved=false` and `Connected=false`.
    static func linkLost(_ daemon: isolated Bluetoothd, _ path: ObjectPath, dropNotifySessions: Bool) {
        guard let device = daemon.devices[path], device.link != .down else { return }
        var changes: [(String, DBusValue)] = []
        if device.servicesResolved { changes.append(("ServicesResolved", .boolean(false))) }
        if device.connectedProperty { changes.append(("Connected", .boolean(false))) }
        linkDown(daemon, path)
        daemon.change(path, BluetoothdAPI.device, changes)
        if dropNotifySessions {
            for characteristic in device.notifying.sorted() {
                daemon.change(characteristic, BluetoothdAPI.characteristic, [("Notifying", .boolean(false))])
            }
            daemon.devices[path]?.notifySessions = [:]
            daemon.devices[path]?.notifying = []
        }
    }

    /// Marks the link down: timers stop, the peripheral stops notifying this link, notify
    /// sessions wait for the next connection, and the device is temporary again.
    static func linkDown(_ daemon: isolated Bluetoothd, _ path: ObjectPath) {
        guard var device = daemon.devices[path] else { return }
        daemon.tasks.cancel("resolve:\(path)")
        daemon.tasks.cancel("link:\(path)")
        daemon.hangingConnects.removeValue(forKey: path)?.resume()
        device.link = .down
        device.servicesResolved = false
        for characteristic in device.notifySessions.keys {
            device.notifySessions[characteristic] = device.notifySessions[characteristic]?.mapValues { _ in false }
            PeripheralNotifier.unsubscribe(daemon, characteristic)
        }
        device.temporary = true
        daemon.devices[path] = device
        armTemporaryTimer(daemon, path)
    }

    /// Removes a temporary device `TemporaryTimeout` after it was last seen.
    static func armTemporaryTimer(_ daemon: isolated Bluetoothd, _ path: ObjectPath) {
        daemon.schedule("temporary:\(path)", after: daemon.timings.temporaryTimeout) { daemon in
            guard let device = daemon.devices[path], device.temporary, device.link == .down else { return }
            removeDevice(daemon, path, announceLinkLoss: false)
        }
    }

    /// `Adapter1.RemoveDevice`.
    static func removeDevice(_ daemon: isolated Bluetoothd, adapter name: String, _ path: ObjectPath) async throws
        -> [DBusValue]
    {
        guard let device = daemon.devices[path], device.adapterName == name else { throw BluetoothdError.doesNotExist }
        guard daemon.adapters[name]?.powered == true else { throw BluetoothdError.notReady }
        if device.link != .down {
            // bluetoothd disconnects first (ServicesResolved=false, Connected=false), then removes.
            _ = try await disconnect(daemon, path)
            daemon.tasks.cancel("link:\(path)")
            if daemon.devices[path]?.link == .disconnecting {
                linkDown(daemon, path)
                daemon.change(path, BluetoothdAPI.device, [("Connected", .boolean(false))])
            }
        }
        removeDevice(daemon, path, announceLinkLoss: false)
        return []
    }

    /// Removes a device object with its GATT objects (children first, as bluetoothd does).
    static func removeDevice(_ daemon: isolated Bluetoothd, _ path: ObjectPath, announceLinkLoss: Bool) {
        guard let device = daemon.devices[path] else { return }
        if announceLinkLoss { linkLost(daemon, path, dropNotifySessions: true) }
        for characteristic in device.notifySessions.keys { PeripheralNotifier.unsubscribe(daemon, characteristic) }
        if let gatt = device.gatt { GattServer.removeGattServices(daemon, path, gatt.services.filter(\.exported)) }
        for key in ["resolve:", "link:", "temporary:"] { daemon.tasks.cancel(key + path.rawValue) }
        daemon.devices[path] = nil
        daemon.devicesByPeripheral[device.peripheral]?.remove(path)
        daemon.adapters[device.adapterName]?.found.remove(path)
        daemon.unexport(path)
    }
}
