/// A change in BlueZ's objects, delivered after the mirror is updated.
///
/// Each `PropertiesChanged` becomes one event per property the client follows, in the order
/// BlueZ sent them; objects added and removed become one event per BlueZ interface.
public enum BlueZEvent: Sendable {
    /// bluetoothd is on the bus and the mirror holds a fresh snapshot.
    case serviceAppeared
    /// bluetoothd left the bus (stopped or crashed); the mirror is empty and every link,
    /// scan and notification session is gone.
    case serviceVanished
    /// An adapter, device or GATT object appeared (its properties are in the mirror).
    case added(BlueZPath, BlueZObjectKind)
    /// An adapter, device or GATT object disappeared.
    case removed(BlueZPath, BlueZObjectKind)
    /// An adapter was switched on or off.
    case adapterPowered(BlueZPath, Bool)
    /// An adapter started or stopped scanning (for any client).
    case adapterDiscovering(BlueZPath, Bool)
    /// A device's link went up or down.
    case deviceConnected(BlueZPath, Bool)
    /// A device's GATT services were resolved, or are no longer.
    case deviceServicesResolved(BlueZPath, Bool)
    /// A device advertised: what changed in this update.
    case deviceAdvertised(BlueZPath, AdvertisementUpdate)
    /// A characteristic's value changed: a notification, or the echo of a read.
    case characteristicValue(BlueZPath, [UInt8])
    /// Notifications on a characteristic were turned on or off (for any client).
    case characteristicNotifying(BlueZPath, Bool)

    /// The object the event concerns; nil for bluetoothd coming and going.
    public var path: BlueZPath? {
        switch self {
        case .serviceAppeared, .serviceVanished: nil
        case .added(let path, _), .removed(let path, _), .adapterPowered(let path, _),
            .adapterDiscovering(let path, _), .deviceConnected(let path, _), .deviceServicesResolved(let path, _),
            .deviceAdvertised(let path, _), .characteristicValue(let path, _), .characteristicNotifying(let path, _):
            path
        }
    }
}

/// The kinds of BlueZ object the client follows.
public enum BlueZObjectKind: Sendable, Equatable {
    /// `org.bluez.Adapter1`.
    case adapter
    /// `org.bluez.Device1`.
    case device
    /// `org.bluez.GattService1`.
    case service
    /// `org.bluez.GattCharacteristic1`.
    case characteristic
    /// `org.bluez.GattDescriptor1`.
    case descriptor
}

/// What one advertisement update of a device changed; nil and empty mean "not in this update".
public struct AdvertisementUpdate: Sendable, Equatable {
    /// The signal strength, dBm.
    public var rssi: Int16?
    /// The advertised local name.
    public var name: String?
    /// Manufacturer data entries that changed, by company id (BlueZ's dictionary accumulates
    /// keys: these are the ones this advertisement carried).
    public var manufacturerData: [UInt16: [UInt8]]
    /// Service data entries that changed, by lower-case 128-bit UUID.
    public var serviceData: [String: [UInt8]]
    /// Whether the advertised service UUIDs changed.
    public var uuidsChanged: Bool

    /// An update.
    public init(
        rssi: Int16? = nil, name: String? = nil, manufacturerData: [UInt16: [UInt8]] = [:],
        serviceData: [String: [UInt8]] = [:], uuidsChanged: Bool = false
    ) {
        self.rssi = rssi
        self.name = name
        self.manufacturerData = manufacturerData
        self.serviceData = serviceData
        self.uuidsChanged = uuidsChanged
    }
}
