import DBusCore
public import SensorModel

/// A typed view of an `org.bluez.Adapter1` object.
public struct Adapter: Sendable, Equatable {
    /// The object path, such as `/org/bluez/hci0`.
    public let path: BlueZPath
    /// The controller's address.
    public let address: BluetoothAddress?
    /// The controller's name.
    public let name: String?
    /// Whether the controller is on.
    public let powered: Bool
    /// Whether any client is scanning on it.
    public let discovering: Bool
    /// Supported roles (`central`, `peripheral`); empty when BlueZ does not say.
    public let roles: [String]

    /// The interface name (`hci0`), the last element of the path.
    public var interfaceName: String { path.lastElement }

    /// Whether the adapter can act as an LE central (BlueZ without `Roles` predates the property: assume yes).
    public var supportsCentral: Bool { roles.isEmpty || roles.contains("central") }

    /// Reads the view from an object's properties.
    init(path: ObjectPath, _ reader: inout PropertyReader) {
        self.path = BlueZPath(path)
        address = reader.read("Address", as: String.self).flatMap(BluetoothAddress.init)
        name = reader.read("Name")
        powered = reader.read("Powered") ?? false
        discovering = reader.read("Discovering") ?? false
        roles = reader.read("Roles") ?? []
    }
}
