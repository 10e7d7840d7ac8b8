public import SensorModel
public import BlueZClient
public import ThermometerProfiles

/// A remote device, identified by its address (never by name: BlueZ replaces
/// the advertised name by the GAP name once connected).
public struct Peripheral: Sendable, Hashable {
    /// The device's address.
    public let address: BluetoothAddress
    /// BlueZ's object path for it.
    public let path: BlueZPath
    /// The advertised name when it was discovered.
    public let name: String?

    /// Creates a peripheral.
    public init(address: BluetoothAddress, path: BlueZPath, name: String?) {
        self.address = address
        self.path = path
        self.name = name
    }

    /// Peripherals are the same device when their addresses are equal.
    public static func == (lhs: Peripheral, rhs: Peripheral) -> Bool { lhs.address == rhs.address }
    /// Hashes the address, the identity of a peripheral.
    public func hash(into hasher: inout Hasher) { hasher.combine(address) }
}

/// What a peripheral advertised.
public struct AdvertisementData: Sendable, Equatable {
    /// The advertised local name.
    public var localName: String?
    /// Advertised service UUIDs.
    public var serviceUUIDs: [BluetoothUUID]
    /// Manufacturer data by company identifier.
    public var manufacturerData: [UInt16: [UInt8]]
    /// Service data by UUID.
    public var serviceData: [String: [UInt8]]
    /// Advertised transmit power.
    public var txPower: Int16?
}

/// One discovery: a peripheral, what it advertised, and how strongly.
public struct Discovery: Sendable {
    /// The peripheral.
    public let peripheral: Peripheral
    /// Its advertisement.
    public let advertisement: AdvertisementData
    /// Signal strength in dBm (nil when BlueZ has none; 127 means unknown).
    public let rssi: Int16?
    /// Whether the peripheral is connected (BlueZ then shows its GAP name, not the advertised one).
    public let isConnected: Bool

    /// Creates a discovery.
    public init(peripheral: Peripheral, advertisement: AdvertisementData, rssi: Int16?, isConnected: Bool = false) {
        self.peripheral = peripheral
        self.advertisement = advertisement
        self.rssi = rssi
        self.isConnected = isConnected
    }
}

/// A GATT service of a connected peripheral.
public struct Service: Sendable, Hashable {
    /// BlueZ's object path (changes when handles shift: find services by UUID).
    public let path: BlueZPath
    /// The service UUID.
    public let uuid: BluetoothUUID?
    /// The peripheral's path.
    public let peripheral: BlueZPath
}

/// A GATT characteristic.
public struct Characteristic: Sendable, Hashable {
    /// BlueZ's object path.
    public let path: BlueZPath
    /// The characteristic UUID.
    public let uuid: BluetoothUUID?
    /// Its properties (`read`, `notify`, `write`, …).
    public let flags: [String]
    /// The service's path.
    public let service: BlueZPath
}

/// A GATT descriptor.
public struct Descriptor: Sendable, Hashable {
    /// BlueZ's object path.
    public let path: BlueZPath
    /// The descriptor UUID (0x2901 is the user description).
    public let uuid: BluetoothUUID?
}
