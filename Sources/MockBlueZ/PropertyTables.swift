import DBusCore

/// Property lists in the order bluetoothd's property tables give them (`src/adapter.c`,
/// `src/device.c`, `src/gatt-client.c`), leaving out those that don't exist yet.
enum PropertyTables {
    /// The adapter UUIDs a freshly started bluetoothd 5.66 lists (trace).
    static let adapterUUIDs = [
        GattUUID.sig(0x1801), GattUUID.sig(0x1800), GattUUID.sig(0x1200), GattUUID.sig(0x110C),
        GattUUID.sig(0x110E), GattUUID.sig(0x180A),
    ]
    static let modalias = "usb:v1D6Bp0246d0542"

    static func adapter(_ spec: MockAdapterSpec, powered: Bool, discovering: Bool) -> [ExportedProperty] {
        [
            ExportedProperty("Address", .string(spec.address)),
            ExportedProperty("AddressType", .string("public")),
            ExportedProperty("Name", .string(spec.alias)),
            ExportedProperty("Alias", .string(spec.alias), writable: true),
            ExportedProperty("Class", .uint32(0)),
            ExportedProperty("Powered", .boolean(powered), writable: true),
            ExportedProperty("Discoverable", .boolean(false), writable: true),
            ExportedProperty("DiscoverableTimeout", .uint32(180), writable: true),
            ExportedProperty("Pairable", .boolean(false), writable: true),
            ExportedProperty("PairableTimeout", .uint32(0), writable: true),
            ExportedProperty("Discovering", .boolean(discovering)),
            ExportedProperty("UUIDs", .strings(adapterUUIDs)),
            ExportedProperty("Modalias", .string(modalias)),
            ExportedProperty("Roles", .strings(["central", "peripheral"])),
        ]
    }

    static func device(_ device: DeviceState) -> [ExportedProperty] {
        var list = [
            ExportedProperty("Address", .string(device.address)),
            ExportedProperty("AddressType", .string(device.addressType)),
        ]
        if let name = device.name { list.append(ExportedProperty("Name", .string(name))) }
        list.append(ExportedProperty("Alias", .string(device.alias), writable: true))
        list += [
            ExportedProperty("Paired", .boolean(false)),
            ExportedProperty("Bonded", .boolean(false)),
            ExportedProperty("Trusted", .boolean(device.trusted), writable: true),
            ExportedProperty("Blocked", .boolean(false), writable: true),
            ExportedProperty("LegacyPairing", .boolean(false)),
        ]
        if let rssi = device.rssi { list.append(ExportedProperty("RSSI", .int16(rssi))) }
        list += [
            ExportedProperty("Connected", .boolean(device.connectedProperty)),
            ExportedProperty("UUIDs", .strings(device.uuids)),
        ]
        if let modalias = device.modalias { list.append(ExportedProperty("Modalias", .string(modalias))) }
        list.append(ExportedProperty("Adapter", .objectPath(device.adapterPath)))
        if let data = device.manufacturerData {
            list.append(ExportedProperty("ManufacturerData", manufacturerData(data)))
        }
        if let data = device.serviceData { list.append(ExportedProperty("ServiceData", serviceData(data))) }
        if let tx = device.txPower { list.append(ExportedProperty("TxPower", .int16(tx))) }
        list.append(ExportedProperty("ServicesResolved", .boolean(device.servicesResolved)))
        return list
    }

    /// The order of properties that come and go, by interface (`device_properties[]`).
    static let order: [String: [String]] = [
        BluetoothdAPI.device: [
            "Address", "AddressType", "Name", "Alias", "Class", "Appearance", "Icon", "Paired", "Bonded", "Trusted",
            "Blocked", "LegacyPairing", "RSSI", "Connected", "UUIDs", "Modalias", "Adapter", "ManufacturerData",
            "ServiceData", "TxPower", "ServicesResolved",
        ]
    ]

    /// Writable properties (the object server re-adds a property as read-only).
    static let writable: [String: Set<String>] = [BluetoothdAPI.device: ["Alias", "Trusted", "Blocked"]]

    static func manufacturerData(_ data: [UInt16: [UInt8]]) -> DBusValue {
        .dictionary(
            key: "q", value: "v",
            data.keys.sorted().map { DBusDictionaryEntry(.uint16($0), .variant(.bytes(data[$0]!))) })
    }

    static func serviceData(_ data: [String: [UInt8]]) -> DBusValue {
        .dictionary(
            key: "s", value: "v",
            data.keys.sorted().map { DBusDictionaryEntry(.string($0), .variant(.bytes(data[$0]!))) })
    }

    static func service(_ node: GattServiceNode, device: ObjectPath) -> [ExportedProperty] {
        [
            ExportedProperty("UUID", .string(node.uuid)),
            ExportedProperty("Device", .objectPath(device)),
            ExportedProperty("Primary", .boolean(true)),
            ExportedProperty("Includes", .array(element: "o", [])),
        ]
    }

    static func characteristic(_ node: GattCharacteristicNode, service: ObjectPath, value: [UInt8])
        -> [ExportedProperty]
    {
        var list = [
            ExportedProperty("UUID", .string(node.uuid)),
            ExportedProperty("Service", .objectPath(service)),
            ExportedProperty("Value", .bytes(value)),
        ]
        if node.canNotify { list.append(ExportedProperty("Notifying", .boolean(false))) }
        list.append(ExportedProperty("Flags", .strings(node.flags)))
        if node.flags.contains("notify") { list.append(ExportedProperty("NotifyAcquired", .boolean(false))) }
        list.append(ExportedProperty("MTU", .uint16(517)))
        return list
    }

    static func descriptor(_ node: GattDescriptorNode, characteristic: ObjectPath) -> [ExportedProperty] {
        [
            ExportedProperty("UUID", .string(node.uuid)),
            ExportedProperty("Characteristic", .objectPath(characteristic)),
            ExportedProperty("Value", .bytes([])),
        ]
    }
}
