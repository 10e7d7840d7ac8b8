import DBusCore

/// Sharing repeated text between the mirror's objects.
///
/// A Swift string over 15 UTF-8 bytes lives on the heap, and a decoded message gives every
/// object its own copy of its interface names, UUIDs and parent path: about 5 KB per
/// thermometer, a megabyte at 200. The mirror keeps one copy of each instead: known names
/// become immortal literals, UUIDs come from a bounded table, and a path that names an
/// object already in the tree reuses that object's key.
extension ObjectTree {
    /// `interfaces` with its names and values sharing storage with what the tree holds.
    mutating func shared(_ interfaces: [String: [String: DBusValue]]) -> [String: [String: DBusValue]] {
        var result: [String: [String: DBusValue]] = [:]
        for (interface, properties) in interfaces {
            var shared: [String: DBusValue] = [:]
            for (name, value) in properties { shared[Self.knownName(name)] = self.shared(value, of: name) }
            result[Self.knownName(interface)] = shared
        }
        return result
    }

    private mutating func shared(_ value: DBusValue, of property: String) -> DBusValue {
        switch (property, value) {
        case ("UUID", .string(let uuid)):
            return .string(sharedUUID(uuid))
        case ("UUIDs", .array(let element, let items)):
            return .array(
                element: element, items.map { if case .string(let uuid) = $0 { .string(sharedUUID(uuid)) } else { $0 } }
            )
        case (_, .objectPath(let path)):
            guard let index = objects.index(forKey: path) else { return value }
            return .objectPath(objects.keys[index])
        default:
            return value
        }
    }

    /// One copy per UUID text; the table stops growing at `uuidLimit` entries (devices
    /// nearby could otherwise feed it forever).
    private mutating func sharedUUID(_ text: String) -> String {
        if let known = uuids[text] { return known }
        if uuids.count < Self.uuidLimit { uuids[text] = text }
        return text
    }

    static let uuidLimit = 1024

    /// The literal for a name of BlueZ's API, or `name` itself.
    static func knownName(_ name: String) -> String { knownNames[name] ?? name }

    /// Interface and property names of BlueZ 5.66 longer than a small string.
    private static let knownNames: [String: String] = Dictionary(
        uniqueKeysWithValues: [
            "org.freedesktop.DBus.Introspectable", "org.freedesktop.DBus.Properties",
            "org.freedesktop.DBus.ObjectManager", "org.freedesktop.DBus.Peer",
            "org.bluez.Adapter1", "org.bluez.Device1", "org.bluez.GattService1",
            "org.bluez.GattCharacteristic1", "org.bluez.GattDescriptor1", "org.bluez.Battery1",
            "org.bluez.AgentManager1", "org.bluez.ProfileManager1", "org.bluez.HealthManager1",
            "org.bluez.GattManager1", "org.bluez.Media1", "org.bluez.MediaControl1",
            "org.bluez.NetworkServer1", "org.bluez.LEAdvertisingManager1", "org.bluez.AdminPolicyStatus1",
            "ServicesResolved", "ManufacturerData", "AdvertisingFlags", "DiscoverableTimeout",
            "ExperimentalFeatures", "SupportedSecondaryChannels", "SupportedIncludes",
            "SupportedInstances",
        ].map { ($0, $0) })
}
