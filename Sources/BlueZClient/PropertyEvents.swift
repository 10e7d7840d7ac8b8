import DBusCore

/// The typed events one `PropertiesChanged` of a followed interface makes.
enum PropertyEvents {
    /// Calls `emit` for each change the client reports: the adapter's `Powered` and
    /// `Discovering`; a device's `Connected`, `ServicesResolved` and advertisement data (one
    /// event for all of it); a characteristic's `Value` and `Notifying`. Values of the wrong
    /// type are reported to `problem` and skipped.
    static func emit(
        _ path: BlueZPath, _ interface: String, _ changed: [String: DBusValue], problem: (String) -> Void,
        _ emit: (BlueZEvent) -> Void
    ) {
        var reader = PropertyReader(changed)
        switch interface {
        case BlueZ.Interface.gattCharacteristic:
            if let value = reader.read("Value", as: [UInt8].self) { emit(.characteristicValue(path, value)) }
            if let notifying = reader.read("Notifying", as: Bool.self) {
                emit(.characteristicNotifying(path, notifying))
            }
        case BlueZ.Interface.adapter:
            if let powered = reader.read("Powered", as: Bool.self) { emit(.adapterPowered(path, powered)) }
            if let discovering = reader.read("Discovering", as: Bool.self) {
                emit(.adapterDiscovering(path, discovering))
            }
        case BlueZ.Interface.device:
            if let connected = reader.read("Connected", as: Bool.self) { emit(.deviceConnected(path, connected)) }
            if let resolved = reader.read("ServicesResolved", as: Bool.self) {
                emit(.deviceServicesResolved(path, resolved))
            }
            if let update = advertisement(&reader) { emit(.deviceAdvertised(path, update)) }
        default:
            break
        }
        for note in reader.problems { problem("\(path) \(interface) \(note)") }
    }

    /// The advertisement data in a device's change, if it has any.
    private static func advertisement(_ reader: inout PropertyReader) -> AdvertisementUpdate? {
        let properties = reader.properties
        guard ["RSSI", "Name", "UUIDs", "ManufacturerData", "ServiceData"].contains(where: { properties[$0] != nil })
        else { return nil }
        return AdvertisementUpdate(
            rssi: reader.read("RSSI"), name: reader.read("Name"),
            manufacturerData: reader.readBytesByKey("ManufacturerData", as: UInt16.self),
            serviceData: lowercasedKeys(reader.readBytesByKey("ServiceData", as: String.self)),
            uuidsChanged: properties["UUIDs"] != nil)
    }

    /// Service data keyed by lower-case UUIDs (later keys win on a clash). BlueZ writes
    /// them in lower case already: then the map is kept as it is, not built again with a
    /// new string per key (every advertisement comes through here).
    private static func lowercasedKeys(_ serviceData: [String: [UInt8]]) -> [String: [UInt8]] {
        let lowerCase = serviceData.keys.allSatisfy { key in
            key.utf8.allSatisfy { $0 < 0x80 && !(UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
        }
        if lowerCase { return serviceData }
        return Dictionary(serviceData.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { $1 })
    }
}
