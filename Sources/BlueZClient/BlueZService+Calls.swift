public import DBusCore

extension BlueZService {
    /// Calls a BlueZ method; errors come back as ``BlueZError``.
    public func call(
        _ path: ObjectPath, _ interface: String, _ member: String, _ arguments: [DBusValue] = [],
        timeout: Duration = .seconds(25)
    ) async throws(BlueZError) -> DBusMessage {
        do {
            return try await connection.call(
                destination: BlueZ.service, path: path, interface: interface, member: member,
                arguments: arguments, timeout: timeout)
        } catch {
            throw BlueZError(any: error)
        }
    }

    // MARK: Adapter

    /// Turns an adapter on or off (`Powered`).
    public func setPowered(_ adapter: ObjectPath, _ on: Bool) async throws(BlueZError) {
        _ = try await call(
            adapter, BlueZ.Interface.properties, "Set",
            [.string(BlueZ.Interface.adapter), .string("Powered"), .variant(.boolean(on))])
    }

    /// Sets this client's discovery filter (BlueZ merges all clients' filters).
    public func setDiscoveryFilter(_ adapter: ObjectPath, _ filter: [(String, DBusValue)]) async throws(BlueZError) {
        _ = try await call(adapter, BlueZ.Interface.adapter, "SetDiscoveryFilter", [.propertyMap(filter)])
    }

    /// Starts this client's discovery session.
    public func startDiscovery(_ adapter: ObjectPath) async throws(BlueZError) {
        _ = try await call(adapter, BlueZ.Interface.adapter, "StartDiscovery")
    }

    /// Ends this client's discovery session; "already stopped" counts as success.
    public func stopDiscovery(_ adapter: ObjectPath) async throws(BlueZError) {
        do {
            _ = try await call(adapter, BlueZ.Interface.adapter, "StopDiscovery")
        } catch {
            switch error {
            case .notReady, .inProgress, .failed: return
            default: throw error
            }
        }
    }

    // MARK: Device

    /// Connects; BlueZ replies when the link is up or the attempt failed.
    public func connect(_ device: ObjectPath, timeout: Duration) async throws(BlueZError) {
        _ = try await call(device, BlueZ.Interface.device, "Connect", timeout: timeout)
    }

    /// Disconnects (also cancels a pending connect).
    public func disconnect(_ device: ObjectPath) async throws(BlueZError) {
        _ = try await call(device, BlueZ.Interface.device, "Disconnect", timeout: .seconds(10))
    }

    /// Reads a property straight from bluetoothd and folds it into the mirror
    /// (for values whose signal BlueZ may skip, such as `Connected`).
    public func refresh(_ path: ObjectPath, _ interface: String, _ name: String) async throws(BlueZError) -> DBusValue {
        let reply = try await call(path, BlueZ.Interface.properties, "Get", [.string(interface), .string(name)])
        guard let value = try? reply.decodeSingle(DBusValue.self) else {
            throw .refused(name: "blectl.Error.BadReply", message: "Get \(name) returned '\(reply.signature)'")
        }
        if tree.change(path, interface, [name: value], invalidated: []) {
            notifyRefreshed(path, interface, name, value)
        }
        return value
    }

    // MARK: GATT

    /// Reads a characteristic's or descriptor's value.
    public func readValue(_ path: ObjectPath, interface: String, offset: UInt16 = 0) async throws(BlueZError)
        -> [UInt8]
    {
        let options: [(String, DBusValue)] = offset == 0 ? [] : [("offset", .uint16(offset))]
        let reply = try await call(path, interface, "ReadValue", [.propertyMap(options)], timeout: .seconds(10))
        guard let bytes = try? reply.decodeSingle([UInt8].self) else {
            throw .refused(name: "blectl.Error.BadReply", message: "ReadValue returned '\(reply.signature)'")
        }
        return bytes
    }

    /// Writes a characteristic's value.
    public func writeValue(_ path: ObjectPath, _ value: [UInt8], withResponse: Bool = true) async throws(BlueZError) {
        let options: [(String, DBusValue)] = [("type", .string(withResponse ? "request" : "command"))]
        _ = try await call(
            path, BlueZ.Interface.gattCharacteristic, "WriteValue", [.bytes(value), .propertyMap(options)],
            timeout: .seconds(10))
    }

    /// Starts notifications; `Value` changes then arrive as `PropertiesChanged`.
    public func startNotify(_ path: ObjectPath) async throws(BlueZError) {
        _ = try await call(path, BlueZ.Interface.gattCharacteristic, "StartNotify", timeout: .seconds(10))
    }

    /// Stops notifications.
    public func stopNotify(_ path: ObjectPath) async throws(BlueZError) {
        _ = try await call(path, BlueZ.Interface.gattCharacteristic, "StopNotify", timeout: .seconds(10))
    }
}
