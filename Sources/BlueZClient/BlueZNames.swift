import DBusCore

/// Names of BlueZ's D-Bus API (5.66).
enum BlueZ {
    /// bluetoothd's bus name.
    static let service = "org.bluez"
    /// The root of BlueZ's object tree.
    static let root: ObjectPath = "/org/bluez"

    /// Interface names.
    enum Interface {
        /// `org.bluez.Adapter1`.
        static let adapter = "org.bluez.Adapter1"
        /// `org.bluez.Device1`.
        static let device = "org.bluez.Device1"
        /// `org.bluez.GattService1`.
        static let gattService = "org.bluez.GattService1"
        /// `org.bluez.GattCharacteristic1`.
        static let gattCharacteristic = "org.bluez.GattCharacteristic1"
        /// `org.bluez.GattDescriptor1`.
        static let gattDescriptor = "org.bluez.GattDescriptor1"
        /// `org.freedesktop.DBus.ObjectManager`.
        static let objectManager = "org.freedesktop.DBus.ObjectManager"
        /// `org.freedesktop.DBus.Properties`.
        static let properties = "org.freedesktop.DBus.Properties"
    }

    /// The object kinds among interface names, in BlueZ's nesting order.
    static func kinds(of interfaces: [String]) -> [BlueZObjectKind] {
        objectKinds.compactMap { interfaces.contains(interface(of: $0)) ? $0 : nil }
    }

    private static let objectKinds: [BlueZObjectKind] = [.adapter, .device, .service, .characteristic, .descriptor]

    /// The interface an object of `kind` has.
    static func interface(of kind: BlueZObjectKind) -> String {
        switch kind {
        case .adapter: Interface.adapter
        case .device: Interface.device
        case .service: Interface.gattService
        case .characteristic: Interface.gattCharacteristic
        case .descriptor: Interface.gattDescriptor
        }
    }
}
