import DBusCore
public import SensorModel

/// A typed view of an `org.bluez.Device1` object.
public struct Device: Sendable, Equatable {
    /// The object path, such as `/org/bluez/hci0/dev_DC_A6_32_01_02_03`.
    public let path: BlueZPath
    /// The device's address (from the property, else from the path).
    public let address: BluetoothAddress?
    /// The adapter the device was seen on.
    public let adapter: BlueZPath?
    /// The name: the advertised local name, and after connecting the GAP name.
    public let name: String?
    /// The alias (the name, unless a user set one).
    public let alias: String?
    /// Signal strength of the last advertisement; nil when not scanning.
    public let rssi: Int16?
    /// Advertised transmit power.
    public let txPower: Int16?
    /// Advertised (and, once resolved, discovered) service UUIDs, lower case.
    public let uuids: [String]
    /// Manufacturer data by company identifier.
    public let manufacturerData: [UInt16: [UInt8]]
    /// Service data by UUID.
    public let serviceData: [String: [UInt8]]
    /// Whether the link is up (may lag: BlueZ can skip this signal, see the connect race).
    public let connected: Bool
    /// Whether GATT discovery finished and the service objects are exported.
    public let servicesResolved: Bool

    /// Reads the view from an object's properties.
    init(path: ObjectPath, _ reader: inout PropertyReader) {
        self.path = BlueZPath(path)
        address =
            reader.read("Address", as: String.self).flatMap(BluetoothAddress.init)
            ?? BluetoothAddress(devicePathElement: path.lastElement)
        adapter = reader.read("Adapter", as: ObjectPath.self).map(BlueZPath.init)
        name = reader.read("Name")
        alias = reader.read("Alias")
        rssi = reader.read("RSSI")
        txPower = reader.read("TxPower")
        uuids = (reader.read("UUIDs", as: [String].self) ?? []).map { $0.lowercased() }
        manufacturerData = reader.readBytesByKey("ManufacturerData", as: UInt16.self)
        serviceData = reader.readBytesByKey("ServiceData", as: String.self)
        connected = reader.read("Connected") ?? false
        servicesResolved = reader.read("ServicesResolved") ?? false
    }
}
