import BlueZClient
public import ThermometerProfiles

extension CentralManager {
    /// The peripheral's services with the given UUIDs (all when empty), waiting
    /// up to `timeout` for at least one.
    ///
    /// Real BlueZ signals `ServicesResolved=true` *before* it exports the GATT
    /// objects (InterfacesAdded follows within milliseconds), so a central that
    /// reads the object tree right after resolution finds nothing; this waits.
    public func discoverServices(
        _ uuids: [BluetoothUUID], for peripheral: Peripheral, timeout: Duration = .seconds(5)
    ) async -> [Service] {
        await wait(timeout: timeout) { central in
            let found = central.currentServices(uuids, of: peripheral)
            return found.isEmpty ? nil : found
        } ?? []
    }

    /// The service's characteristics with the given UUIDs (all when empty),
    /// waiting up to `timeout` for at least one.
    ///
    /// BlueZ exports characteristics one by one: ask for the UUIDs you need
    /// (one call per characteristic) rather than for all of them at once.
    public func discoverCharacteristics(
        _ uuids: [BluetoothUUID], for service: Service, timeout: Duration = .seconds(5)
    ) async -> [Characteristic] {
        await wait(timeout: timeout) { central in
            let found = central.currentCharacteristics(uuids, of: service)
            return found.isEmpty ? nil : found
        } ?? []
    }

    /// The services exported now, without waiting.
    public func currentServices(_ uuids: [BluetoothUUID], of peripheral: Peripheral) -> [Service] {
        mirror { $0.services(of: peripheral.path) }.compactMap { service in
            let uuid = BluetoothUUID(service.uuid)
            guard Self.wanted(uuid, uuids) else { return nil }
            return Service(path: service.path, uuid: uuid, peripheral: peripheral.path)
        }
    }

    /// The characteristics exported now, without waiting.
    public func currentCharacteristics(_ uuids: [BluetoothUUID], of service: Service) -> [Characteristic] {
        mirror { $0.characteristics(of: service.path) }.compactMap { characteristic in
            let uuid = BluetoothUUID(characteristic.uuid)
            guard Self.wanted(uuid, uuids) else { return nil }
            return Characteristic(
                path: characteristic.path, uuid: uuid, flags: characteristic.flags, service: service.path)
        }
    }

    private static func wanted(_ uuid: BluetoothUUID?, _ uuids: [BluetoothUUID]) -> Bool {
        guard !uuids.isEmpty else { return true }
        guard let uuid else { return false }
        return uuids.contains(uuid)
    }

    /// The characteristic's descriptors.
    public func discoverDescriptors(for characteristic: Characteristic) -> [Descriptor] {
        mirror { $0.descriptors(of: characteristic.path) }.map {
            Descriptor(path: $0.path, uuid: BluetoothUUID($0.uuid))
        }
    }

    /// Whether the characteristic object still exists (GATT apps restart).
    public func exists(_ characteristic: Characteristic) -> Bool {
        mirror { $0.exists(characteristic.path, .characteristic) }
    }

    /// Reads a characteristic's value.
    ///
    /// BlueZ also reports the value it read as a ``CentralEvent/valueUpdated(_:_:)``, before
    /// this returns; notifications arriving meanwhile are reported as always, in order.
    public func readValue(for characteristic: Characteristic) async throws(CentralError) -> [UInt8] {
        do {
            return try await client.readCharacteristic(characteristic.path)
        } catch {
            throw Self.map(error)
        }
    }

    /// Reads a descriptor's value.
    public func readValue(for descriptor: Descriptor) async throws(CentralError) -> [UInt8] {
        do {
            return try await client.readDescriptor(descriptor.path)
        } catch {
            throw Self.map(error)
        }
    }

    /// Writes a characteristic's value.
    public func writeValue(_ value: [UInt8], for characteristic: Characteristic) async throws(CentralError) {
        do {
            try await client.writeValue(characteristic.path, value)
        } catch {
            throw Self.map(error)
        }
    }

    /// Turns notifications on or off; updates arrive as ``CentralEvent/valueUpdated(_:_:)``.
    ///
    /// A session this client already holds is not started twice: BlueZ keeps
    /// it across reconnects and re-enables notifications itself.
    public func setNotifyValue(_ enabled: Bool, for characteristic: Characteristic) async throws(CentralError) {
        let path = characteristic.path
        let notifying = mirror { $0.characteristic(path)?.notifying } ?? false
        do {
            if enabled {
                guard !(notifySessions.contains(path) && notifying) else { return }
                do {
                    try await client.startNotify(path)
                } catch .inProgress {
                    // Already started for this client (a request raced ours).
                }
                notifySessions.insert(path)
            } else {
                guard notifySessions.remove(path) != nil else { return }
                try await client.stopNotify(path)
            }
        } catch {
            throw Self.map(error)
        }
    }
}
