import DBusCore

/// BlueZ's messages in the shapes bluetoothd sends them (docs: /work/shared traces,
/// MockBlueZ's property tables), for the `dbus` and `bluez` seeds.
extension Seeds {
    static let adapter: ObjectPath = "/org/bluez/hci0"
    static let device: ObjectPath = "/org/bluez/hci0/dev_DC_A6_32_00_00_01"
    static let service: ObjectPath = "/org/bluez/hci0/dev_DC_A6_32_00_00_01/service0015"
    static let characteristic: ObjectPath = "/org/bluez/hci0/dev_DC_A6_32_00_00_01/service0015/char0016"
    static let manager = "org.freedesktop.DBus.ObjectManager"
    static let properties = "org.freedesktop.DBus.Properties"

    /// Every interface of the four objects, as `GetManagedObjects` and `InterfacesAdded` carry them.
    static let objects: [(ObjectPath, String, [(String, DBusValue)])] = [
        (
            adapter, "org.bluez.Adapter1",
            [
                ("Address", .string("DC:A6:32:12:34:56")), ("AddressType", .string("public")),
                ("Name", .string("raspberrypi")), ("Powered", .boolean(true)), ("Discovering", .boolean(false)),
                ("Roles", .strings(["central", "peripheral"])),
            ]
        ),
        (
            device, "org.bluez.Device1",
            [
                ("Address", .string("DC:A6:32:00:00:01")), ("Name", .string("Thermometer")),
                ("Alias", .string("Thermometer")), ("Adapter", .objectPath(adapter)), ("RSSI", .int16(-52)),
                ("TxPower", .int16(4)), ("UUIDs", .strings(["0000181a-0000-1000-8000-00805f9b34fb"])),
                (
                    "ManufacturerData",
                    .dictionary(
                        key: "q", value: "v", [DBusDictionaryEntry(.uint16(0x0499), .variant(.bytes([5, 18])))])
                ),
                (
                    "ServiceData",
                    .dictionary(
                        key: "s", value: "v",
                        [
                            DBusDictionaryEntry(
                                .string("0000fcd2-0000-1000-8000-00805f9b34fb"),
                                .variant(.bytes([0x40, 0x02, 0xC4, 0x09])))
                        ])
                ),
                ("Connected", .boolean(true)), ("ServicesResolved", .boolean(true)),
            ]
        ),
        (
            service, "org.bluez.GattService1",
            [
                ("UUID", .string("00000001-710e-4a5b-8d75-3e5b444bc3cf")), ("Device", .objectPath(device)),
                ("Primary", .boolean(true)),
            ]
        ),
        (
            characteristic, "org.bluez.GattCharacteristic1",
            [
                ("UUID", .string("00000002-710e-4a5b-8d75-3e5b444bc3cf")), ("Service", .objectPath(service)),
                ("Value", .bytes(Array("112.5 F".utf8))), ("Notifying", .boolean(true)),
                ("Flags", .strings(["notify", "read"])),
            ]
        ),
    ]

    /// `a{oa{sa{sv}}}`: the body of a `GetManagedObjects` reply.
    static var managedObjects: DBusValue {
        .dictionary(
            key: "o", value: "a{sa{sv}}",
            objects.map { path, interface, properties in
                DBusDictionaryEntry(.objectPath(path), interfaceMap(interface, properties))
            })
    }

    static func interfaceMap(_ interface: String, _ properties: [(String, DBusValue)]) -> DBusValue {
        .dictionary(key: "s", value: "a{sv}", [DBusDictionaryEntry(.string(interface), .propertyMap(properties))])
    }

    /// The snapshot, as a message of that body (the probe reads any message's body).
    static func snapshot() throws -> DBusMessage {
        try DBusMessage.signal(path: "/", interface: manager, member: "GetManagedObjects", arguments: [managedObjects])
    }

    static func interfacesAdded(_ index: Int) throws -> DBusMessage {
        let (path, interface, properties) = objects[index]
        return try DBusMessage.signal(
            path: "/", interface: manager, member: "InterfacesAdded",
            arguments: [.objectPath(path), interfaceMap(interface, properties)])
    }

    static func interfacesRemoved(_ index: Int) throws -> DBusMessage {
        let (path, interface, _) = objects[index]
        return try DBusMessage.signal(
            path: "/", interface: manager, member: "InterfacesRemoved",
            arguments: [.objectPath(path), .strings([interface])])
    }

    static func propertiesChanged(
        _ path: ObjectPath, _ interface: String, _ changed: [(String, DBusValue)], invalidated: [String] = []
    ) throws -> DBusMessage {
        try DBusMessage.signal(
            path: path, interface: properties, member: "PropertiesChanged",
            arguments: [.string(interface), .propertyMap(changed), .strings(invalidated)])
    }

    static var notification: DBusMessage {
        get throws {
            try propertiesChanged(
                characteristic, "org.bluez.GattCharacteristic1", [("Value", .bytes(Array("47.3 C".utf8)))])
        }
    }

    static var advertisement: DBusMessage {
        get throws {
            try propertiesChanged(
                device, "org.bluez.Device1",
                [
                    ("RSSI", .int16(-61)),
                    (
                        "ServiceData",
                        .dictionary(
                            key: "s", value: "v",
                            [
                                DBusDictionaryEntry(
                                    .string("0000181a-0000-1000-8000-00805f9b34fb"),
                                    .variant(.bytes([0x58, 0x2d, 0x34, 0x12, 0x33, 0xdc, 0x00, 0xe0])))
                            ])
                    ),
                ], invalidated: ["TxPower"])
        }
    }

    /// Single messages of every shape the daemon reads, and calls it makes.
    static var dbusMessages: [(name: String, message: DBusMessage)] {
        get throws {
            [
                ("managed-objects", try snapshot()),
                ("interfaces-added-device", try interfacesAdded(1)),
                ("interfaces-removed", try interfacesRemoved(3)),
                ("notification", try notification),
                ("advertisement", try advertisement),
                (
                    "adapter-powered",
                    try propertiesChanged(adapter, "org.bluez.Adapter1", [("Powered", .boolean(false))])
                ),
                (
                    "set-discovery-filter",
                    try DBusMessage.methodCall(
                        destination: "org.bluez", path: adapter, interface: "org.bluez.Adapter1",
                        member: "SetDiscoveryFilter",
                        arguments: [
                            .propertyMap([
                                ("Transport", .string("le")), ("DuplicateData", .boolean(false)),
                                ("UUIDs", .strings(["0000fcd2-0000-1000-8000-00805f9b34fb"])), ("RSSI", .int16(-90)),
                            ])
                        ])
                ),
                (
                    "structs-and-numbers",
                    try DBusMessage.signal(
                        path: "/org/blectl", interface: "org.blectl.Seeds", member: "Numbers",
                        arguments: [
                            .structure([.byte(1), .boolean(true), .int16(-2), .uint16(3), .int32(-4), .uint32(5)]),
                            .structure([.int64(-6), .uint64(7), .double(8.5), .signature("a(yv)")]),
                            .array(element: "(yv)", [.structure([.byte(9), .variant(.variant(.string("x")))])]),
                        ])
                ),
            ]
        }
    }

    /// Runs of messages: a snapshot, then the signals that follow it in a central's life.
    static var bluezRuns: [(name: String, messages: [DBusMessage])] {
        get throws {
            [
                ("snapshot-then-changes", [try snapshot(), try notification, try advertisement]),
                (
                    "added-changed-removed",
                    try [0, 1, 2, 3].map(interfacesAdded) + [try notification, try interfacesRemoved(2)]
                ),
                (
                    "disconnect",
                    [
                        try snapshot(),
                        try propertiesChanged(
                            device, "org.bluez.Device1",
                            [("ServicesResolved", .boolean(false)), ("Connected", .boolean(false))]),
                        try interfacesRemoved(3), try interfacesRemoved(2),
                    ]
                ),
            ]
        }
    }
}
