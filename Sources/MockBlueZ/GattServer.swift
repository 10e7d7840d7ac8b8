import DBusCore

/// GATT objects under a device and their methods (bluetoothd 5.66's `src/gatt-client.c`).
enum GattServer {
    /// Exports services with their characteristics and descriptors, in handle order.
    static func exportGattServices(_ daemon: isolated Bluetoothd, _ device: ObjectPath, _ services: [GattServiceNode]) {
        for service in services.sorted(by: { $0.handle < $1.handle }) {
            let servicePath = GattPaths.service(device, service)
            daemon.gattObjects[servicePath] = .service(device: device, service)
            daemon.export(
                servicePath,
                [
                    ExportedInterface(
                        name: BluetoothdAPI.service, properties: PropertyTables.service(service, device: device))
                ])
            for characteristic in service.characteristics {
                let path = GattPaths.characteristic(servicePath, characteristic)
                daemon.gattObjects[path] = .characteristic(device: device, characteristic)
                daemon.export(path, [characteristicInterface(daemon, characteristic, service: servicePath)])
                for descriptor in characteristic.descriptors {
                    let descriptorPath = GattPaths.descriptor(path, descriptor)
                    daemon.gattObjects[descriptorPath] = .descriptor(
                        device: device, characteristic: path, characteristic, descriptor)
                    daemon.export(descriptorPath, [descriptorInterface(daemon, descriptor, characteristic: path)])
                }
            }
        }
    }

    /// Removes services in bluetoothd's order: per characteristic its descriptors, then the
    /// characteristic; the service last. Their notify sessions end without `Notifying=false`.
    static func removeGattServices(_ daemon: isolated Bluetoothd, _ device: ObjectPath, _ services: [GattServiceNode]) {
        for service in services.sorted(by: { $0.handle < $1.handle }) {
            let servicePath = GattPaths.service(device, service)
            for characteristic in service.characteristics {
                let path = GattPaths.characteristic(servicePath, characteristic)
                for descriptor in characteristic.descriptors {
                    let descriptorPath = GattPaths.descriptor(path, descriptor)
                    daemon.gattObjects[descriptorPath] = nil
                    daemon.unexport(descriptorPath)
                }
                PeripheralNotifier.unsubscribe(daemon, path)
                daemon.devices[device]?.notifySessions[path] = nil
                daemon.devices[device]?.notifying.remove(path)
                daemon.gattObjects[path] = nil
                daemon.unexport(path)
            }
            daemon.gattObjects[servicePath] = nil
            daemon.unexport(servicePath)
        }
    }

    private static func characteristicInterface(
        _ daemon: isolated Bluetoothd, _ node: GattCharacteristicNode, service: ObjectPath
    ) -> ExportedInterface {
        let unsupported: @Sendable (isolated Bluetoothd, MethodCall) async throws -> [DBusValue] = { _, _ in
            throw BluetoothdError.notSupported
        }
        return ExportedInterface(
            name: BluetoothdAPI.characteristic,
            methods: [
                daemon.method("ReadValue", in: "a{sv}", out: "ay") { daemon, call in
                    try await readCharacteristic(daemon, call)
                },
                daemon.method("WriteValue", in: "aya{sv}") { daemon, call in try await writeCharacteristic(daemon, call)
                },
                daemon.method("AcquireWrite", in: "a{sv}", out: "hq", unsupported),
                daemon.method("AcquireNotify", in: "a{sv}", out: "hq", unsupported),
                daemon.method("StartNotify") { daemon, call in try await startNotify(daemon, call) },
                daemon.method("StopNotify") { daemon, call in try stopNotify(daemon, call) },
            ],
            properties: PropertyTables.characteristic(node, service: service, value: node.discoveredValue ?? []))
    }

    private static func descriptorInterface(
        _ daemon: isolated Bluetoothd, _ node: GattDescriptorNode, characteristic: ObjectPath
    ) -> ExportedInterface {
        ExportedInterface(
            name: BluetoothdAPI.descriptor,
            methods: [
                daemon.method("ReadValue", in: "a{sv}", out: "ay") { daemon, call in
                    try await readDescriptor(daemon, call)
                },
                daemon.method("WriteValue", in: "aya{sv}") { daemon, call in
                    try requireLink(daemon, call.path)
                    throw BluetoothdError.notPermitted("Write not permitted")
                },
            ],
            properties: PropertyTables.descriptor(node, characteristic: characteristic))
    }

    // MARK: Reads and writes

    /// The device a GATT object belongs to, if its link is up; else `Failed "Not connected"`.
    @discardableResult
    static func requireLink(_ daemon: isolated Bluetoothd, _ path: ObjectPath) throws -> DeviceState {
        let device: ObjectPath
        switch daemon.gattObjects[path] {
        case .service(let owner, _)?, .characteristic(let owner, _)?, .descriptor(let owner, _, _, _)?: device = owner
        case nil: throw DBusError(name: DBusError.Name.unknownObject)
        }
        guard let state = daemon.devices[device], state.link == .up || state.link == .disconnecting else {
            throw BluetoothdError.notConnectedGatt
        }
        return state
    }

    /// `offset` and `type` from a GATT options dictionary (keys compared case-insensitively).
    private static func options(_ daemon: isolated Bluetoothd, _ value: DBusValue?) throws -> (
        offset: Int, type: String?
    ) {
        guard let entries = value?.dictionaryEntries else { throw BluetoothdError.invalidArguments }
        var offset = 0
        var type: String?
        for entry in entries {
            guard case .string(let key) = entry.key, case .variant(let inner) = entry.value else { continue }
            switch (key.lowercased(), inner) {
            case ("offset", .uint16(let value)): offset = Int(value)
            case ("offset", _): throw BluetoothdError.invalidArguments
            case ("type", .string(let value)): type = value
            case ("type", _): throw BluetoothdError.invalidArguments
            default: break
            }
        }
        return (offset, type)
    }

    static func readCharacteristic(_ daemon: isolated Bluetoothd, _ call: MethodCall) async throws -> [DBusValue] {
        let device = try requireLink(daemon, call.path)
        guard case .characteristic(_, let node)? = daemon.gattObjects[call.path] else {
            throw BluetoothdError.notSupported
        }
        let offset = try options(daemon, call.arguments.first).offset
        try await Task.sleep(for: daemon.timings.gattOperation)
        try requireLink(daemon, call.path)
        // The peripheral answers a read of a characteristic without "read" with an ATT error.
        guard node.flags.contains("read") else { throw BluetoothdError.notPermitted("Read not permitted") }
        let value: [UInt8]
        switch node.content {
        case .unreadable, .thermoProClock: throw BluetoothdError.notPermitted("Read not permitted")
        case .temperature: value = daemon.world.withState { $0.currentTemperatureValue(device.peripheral) }
        case .unit: value = Array(daemon.peripheral(device.peripheral).unit.rawValue.utf8)
        case .fixed(let bytes): value = bytes
        case .heartRate: value = [0x00, daemon.peripheral(device.peripheral).heartRate]
        case .memoryCommand: value = daemon.peripheral(device.peripheral).memory?.lastAnswer ?? []
        case .stockMemory(let role): value = StockMemoryGatt.read(daemon, peripheral: device.peripheral, role)
        case .currentTime: value = daemon.peripheral(device.peripheral).currentTime?.read() ?? []
        case .localTimeInformation:
            value = daemon.peripheral(device.peripheral).currentTime?.localTimeInformation ?? []
        }
        guard offset <= value.count else { throw BluetoothdError.invalidArguments("Invalid offset") }
        // The read lands in bluetoothd's cache (at the offset), and the cache is announced.
        cacheValue(daemon, call.path, BluetoothdAPI.characteristic, value, offset: offset)
        return [.bytes(Array(value[offset...]))]
    }

    static func readDescriptor(_ daemon: isolated Bluetoothd, _ call: MethodCall) async throws -> [DBusValue] {
        let device = try requireLink(daemon, call.path)
        guard case .descriptor(_, let characteristic, let owner, let node)? = daemon.gattObjects[call.path] else {
            throw BluetoothdError.notSupported
        }
        let offset = try options(daemon, call.arguments.first).offset
        try await Task.sleep(for: daemon.timings.gattOperation)
        try requireLink(daemon, call.path)
        let value: [UInt8]
        switch node.content {
        case .text(let text): value = Array(text.utf8)
        case .clientConfiguration:
            let enabled = daemon.notifiers.values.contains { $0.subscribers.contains(characteristic) }
            value = enabled ? (owner.flags.contains("notify") ? [0x01, 0x00] : [0x02, 0x00]) : [0x00, 0x00]
        }
        _ = device
        guard offset <= value.count else { throw BluetoothdError.invalidArguments("Invalid offset") }
        cacheValue(daemon, call.path, BluetoothdAPI.descriptor, value, offset: offset)
        return [.bytes(Array(value[offset...]))]
    }

    private static func cacheValue(
        _ daemon: isolated Bluetoothd, _ path: ObjectPath, _ interface: String, _ value: [UInt8], offset: Int
    ) {
        var cached = value
        if offset > 0, case .array(_, let old)? = daemon.objects({ $0.property(path, interface, "Value") }) {
            let head = old.prefix(offset).compactMap { item -> UInt8? in
                if case .byte(let byte) = item { return byte }
                return nil
            }
            cached = head + Array(repeating: 0, count: offset - head.count) + value[offset...]
        }
        daemon.change(path, interface, [("Value", .bytes(cached))])
    }

    static func writeCharacteristic(_ daemon: isolated Bluetoothd, _ call: MethodCall) async throws -> [DBusValue] {
        let device = try requireLink(daemon, call.path)
        guard case .characteristic(_, let node)? = daemon.gattObjects[call.path] else {
            throw BluetoothdError.notSupported
        }
        let value = try call.argument(0, as: [UInt8].self)
        let (offset, type) = try options(daemon, call.arguments.count > 1 ? call.arguments[1] : nil)
        let kind = type?.lowercased()
        let request = (kind == nil && node.flags.contains("write")) || kind == "request" || kind == "reliable"
        let command = kind == "command" || (kind == nil && node.flags.contains("write-without-response"))
        guard request || (command && offset == 0) else { throw BluetoothdError.notSupported }
        guard value.count + offset <= 512 else { throw BluetoothdError.invalidArguments("Invalid Length") }
        try await Task.sleep(for: daemon.timings.gattOperation)
        try requireLink(daemon, call.path)
        guard node.flags.contains("write") || node.flags.contains("write-without-response") else {
            throw BluetoothdError.notPermitted("Write not permitted")
        }
        if node.content == .unit {
            daemon.world.withState { world in
                // cputemp compares str(dbus.Byte) ("67") with "C": the write changes nothing,
                // unless the scenario asks for a peripheral that switches.
                guard world.unitWritesTakeEffect, let first = value.first else { return }
                if first == UInt8(ascii: "C") { world.peripherals[device.peripheral].unit = .celsius }
                if first == UInt8(ascii: "F") { world.peripherals[device.peripheral].unit = .fahrenheit }
            }
        }
        if node.content == .memoryCommand {
            try MemorySensorGatt.write(daemon, device: device, path: call.path, value, isCommand: !request)
        }
        if case .stockMemory(let role) = node.content {
            try StockMemoryGatt.write(daemon, peripheral: device.peripheral, role, value)
        }
        if node.content == .thermoProClock {
            try ThermoProClockGatt.write(daemon, peripheral: device.peripheral, value)
        }
        if node.content == .currentTime {
            try daemon.world.withState { world in try world.peripherals[device.peripheral].currentTime?.write(value) }
        }
        if node.content == .localTimeInformation {
            try daemon.world.withState { world in
                try world.peripherals[device.peripheral].currentTime?.writeLocalTimeInformation(value)
            }
        }
        return []
    }

    // MARK: Notify sessions

    /// `StartNotify`: `Notifying=true`, the reply, then the peripheral's first value.
    static func startNotify(_ daemon: isolated Bluetoothd, _ call: MethodCall) async throws -> [DBusValue] {
        guard case .characteristic(let devicePath, let node)? = daemon.gattObjects[call.path] else {
            throw DBusError(name: DBusError.Name.unknownObject)
        }
        guard let device = daemon.devices[devicePath] else { throw BluetoothdError.notConnectedGatt }
        if device.link == .disconnecting { throw BluetoothdError.notConnected }
        guard node.canNotify else { throw BluetoothdError.notSupported }
        // Each client can only have one session; a second StartNotify is fine once registered.
        if let registered = device.notifySessions[call.path]?[call.sender] {
            if registered { return [] }
            throw BluetoothdError.inProgress
        }
        daemon.devices[devicePath]?.notifySessions[call.path, default: [:]][call.sender] = false
        // Not connected: success now, registered when the link is back and resolved.
        guard device.link == .up, device.servicesResolved else { return [] }
        try await Task.sleep(for: daemon.timings.gattOperation)
        registerNotifySession(daemon, devicePath, call.path, call.sender)
        return []
    }

    /// The peripheral confirmed the subscription of `client`.
    static func registerNotifySession(
        _ daemon: isolated Bluetoothd, _ device: ObjectPath, _ characteristic: ObjectPath, _ client: String
    ) {
        guard let state = daemon.devices[device], state.link == .up,
            state.notifySessions[characteristic]?[client] == false,
            case .characteristic(_, let node)? = daemon.gattObjects[characteristic]
        else { return }
        daemon.devices[device]?.notifySessions[characteristic]?[client] = true
        if !state.notifying.contains(characteristic) {
            daemon.devices[device]?.notifying.insert(characteristic)
            daemon.change(characteristic, BluetoothdAPI.characteristic, [("Notifying", .boolean(true))])
        }
        PeripheralNotifier.subscribe(daemon, characteristic, peripheral: state.peripheral, node)
        if node.content == .stockMemory(.records) {
            StockMemoryGatt.startDownload(
                daemon, device: device, characteristic: characteristic, peripheral: state.peripheral)
        }
    }

    /// `StopNotify`: `Notifying=false` (when no session is left), then the reply.
    static func stopNotify(_ daemon: isolated Bluetoothd, _ call: MethodCall) throws -> [DBusValue] {
        guard case .characteristic(let devicePath, _)? = daemon.gattObjects[call.path] else {
            throw DBusError(name: DBusError.Name.unknownObject)
        }
        guard daemon.devices[devicePath]?.notifySessions[call.path]?[call.sender] != nil else {
            throw BluetoothdError.failed("No notify session started")
        }
        endNotifySession(daemon, call.sender, device: devicePath, characteristic: call.path)
        return []
    }

    /// Ends every notify session `client` holds on `device` (the client left the bus).
    static func endNotifySessions(_ daemon: isolated Bluetoothd, of client: String, device: ObjectPath) {
        guard let sessions = daemon.devices[device]?.notifySessions else { return }
        for (characteristic, clients) in sessions.sorted(by: { $0.key < $1.key }) where clients[client] != nil {
            endNotifySession(daemon, client, device: device, characteristic: characteristic)
        }
    }

    private static func endNotifySession(
        _ daemon: isolated Bluetoothd, _ client: String, device: ObjectPath, characteristic: ObjectPath
    ) {
        daemon.devices[device]?.notifySessions[characteristic]?[client] = nil
        let remaining = daemon.devices[device]?.notifySessions[characteristic] ?? [:]
        if remaining.isEmpty { daemon.devices[device]?.notifySessions[characteristic] = nil }
        if !remaining.values.contains(true), daemon.devices[device]?.notifying.contains(characteristic) == true {
            daemon.devices[device]?.notifying.remove(characteristic)
            daemon.change(characteristic, BluetoothdAPI.characteristic, [("Notifying", .boolean(false))])
        }
        if !remaining.values.contains(true) { PeripheralNotifier.unsubscribe(daemon, characteristic) }
    }
}
