import DBusCore

extension BlueZService {
    /// Calls a BlueZ method; errors come back as ``BlueZError``.
    ///
    /// The connection keeps the calls awaiting replies within a budget (see
    /// `DBusConnection.call(_:timeout:priority:)`). Clean-up calls (`Disconnect`, `StopNotify`,
    /// `StopDiscovery`: `cleanUp`) and the calls concerning preferred devices (see
    /// ``setPreferred(_:_:)``) go before the others waiting for a place.
    func call(
        _ path: ObjectPath, _ interface: String, _ member: String, _ arguments: [DBusValue] = [],
        timeout: Duration = .seconds(25), cleanUp: Bool = false
    ) async throws(BlueZError) -> DBusMessage {
        let priority: CallPriority = cleanUp || isPreferred(path) ? .high : .normal
        do {
            return try await connection.call(
                destination: BlueZ.service, path: path, interface: interface, member: member,
                arguments: arguments, timeout: timeout, priority: priority)
        } catch {
            throw BlueZError(any: error)
        }
    }

    // MARK: Adapter

    /// Turns an adapter on or off (`Powered`).
    public func setPowered(_ adapter: BlueZPath, _ on: Bool) async throws(BlueZError) {
        _ = try await call(
            adapter.objectPath, BlueZ.Interface.properties, "Set",
            [.string(BlueZ.Interface.adapter), .string("Powered"), .variant(.boolean(on))])
    }

    /// Sets this client's discovery filter (BlueZ merges all clients' filters).
    public func setDiscoveryFilter(_ adapter: BlueZPath, _ filter: DiscoveryFilter) async throws(BlueZError) {
        _ = try await call(
            adapter.objectPath, BlueZ.Interface.adapter, "SetDiscoveryFilter", [.propertyMap(filter.properties)])
    }

    /// Starts this client's discovery session.
    public func startDiscovery(_ adapter: BlueZPath) async throws(BlueZError) {
        _ = try await call(adapter.objectPath, BlueZ.Interface.adapter, "StartDiscovery")
    }

    /// Ends this client's discovery session; "already stopped" counts as success.
    public func stopDiscovery(_ adapter: BlueZPath, timeout: Duration = .seconds(25)) async throws(BlueZError) {
        do {
            _ = try await call(
                adapter.objectPath, BlueZ.Interface.adapter, "StopDiscovery", timeout: timeout, cleanUp: true)
        } catch {
            switch error {
            // Newer BlueZ answers InProgress once the session is gone: as NotReady, it is stopped.
            case .notReady, .inProgress, .failed: return
            default: throw error
            }
        }
    }

    // MARK: Device

    /// Connects; BlueZ replies when the link is up or the attempt failed.
    public func connect(_ device: BlueZPath, timeout: Duration) async throws(BlueZError) {
        _ = try await call(device.objectPath, BlueZ.Interface.device, "Connect", timeout: timeout)
    }

    /// Disconnects (also cancels a pending connect).
    public func disconnect(_ device: BlueZPath, timeout: Duration = .seconds(10)) async throws(BlueZError) {
        _ = try await call(device.objectPath, BlueZ.Interface.device, "Disconnect", timeout: timeout, cleanUp: true)
    }

    /// Reads `Connected` straight from bluetoothd and folds it into the mirror (BlueZ may
    /// skip its signal: the connect race).
    @discardableResult
    public func refreshConnected(_ device: BlueZPath) async throws(BlueZError) -> Bool {
        let reply = try await call(
            device.objectPath, BlueZ.Interface.properties, "Get",
            [.string(BlueZ.Interface.device), .string("Connected")])
        guard let value = try? reply.decodeSingle(DBusValue.self), case .boolean(let connected) = value else {
            throw .refused(name: "blectl.Error.BadReply", message: "Get Connected returned '\(reply.signature)'")
        }
        if tree.change(device.objectPath, BlueZ.Interface.device, ["Connected": value], invalidated: []) {
            notifyChanges(device, BlueZ.Interface.device, ["Connected": value])
        }
        return connected
    }

    // MARK: GATT

    /// Reads a characteristic's value.
    public func readCharacteristic(_ path: BlueZPath) async throws(BlueZError) -> [UInt8] {
        try await readValue(path.objectPath, BlueZ.Interface.gattCharacteristic)
    }

    /// Reads a descriptor's value.
    public func readDescriptor(_ path: BlueZPath) async throws(BlueZError) -> [UInt8] {
        try await readValue(path.objectPath, BlueZ.Interface.gattDescriptor)
    }

    private func readValue(_ path: ObjectPath, _ interface: String) async throws(BlueZError) -> [UInt8] {
        let reply = try await call(path, interface, "ReadValue", [.propertyMap([])], timeout: .seconds(10))
        guard let bytes = try? reply.decodeSingle([UInt8].self) else {
            throw .refused(name: "blectl.Error.BadReply", message: "ReadValue returned '\(reply.signature)'")
        }
        return bytes
    }

    /// Writes a characteristic's value.
    public func writeValue(_ path: BlueZPath, _ value: [UInt8], withResponse: Bool = true) async throws(BlueZError) {
        let options: [(String, DBusValue)] = [("type", .string(withResponse ? "request" : "command"))]
        _ = try await call(
            path.objectPath, BlueZ.Interface.gattCharacteristic, "WriteValue", [.bytes(value), .propertyMap(options)],
            timeout: .seconds(10))
    }

    /// Starts notifications; `Value` changes then arrive as ``BlueZEvent/characteristicValue(_:_:)``.
    public func startNotify(_ path: BlueZPath) async throws(BlueZError) {
        _ = try await call(path.objectPath, BlueZ.Interface.gattCharacteristic, "StartNotify", timeout: .seconds(10))
    }

    /// Stops notifications.
    public func stopNotify(_ path: BlueZPath, timeout: Duration = .seconds(10)) async throws(BlueZError) {
        _ = try await call(
            path.objectPath, BlueZ.Interface.gattCharacteristic, "StopNotify", timeout: timeout, cleanUp: true)
    }
}
