public import DBusCore

/// Names of BlueZ's D-Bus API (5.66).
public enum BlueZ {
    /// bluetoothd's bus name.
    public static let service = "org.bluez"
    /// The root of BlueZ's object tree.
    public static let root: ObjectPath = "/org/bluez"

    /// Interface names.
    public enum Interface {
        /// `org.bluez.Adapter1`.
        public static let adapter = "org.bluez.Adapter1"
        /// `org.bluez.Device1`.
        public static let device = "org.bluez.Device1"
        /// `org.bluez.GattService1`.
        public static let gattService = "org.bluez.GattService1"
        /// `org.bluez.GattCharacteristic1`.
        public static let gattCharacteristic = "org.bluez.GattCharacteristic1"
        /// `org.bluez.GattDescriptor1`.
        public static let gattDescriptor = "org.bluez.GattDescriptor1"
        /// `org.freedesktop.DBus.ObjectManager`.
        public static let objectManager = "org.freedesktop.DBus.ObjectManager"
        /// `org.freedesktop.DBus.Properties`.
        public static let properties = "org.freedesktop.DBus.Properties"
    }
}
