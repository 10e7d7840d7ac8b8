import DBusCore

/// The state of a link between an adapter and a peripheral.
enum LinkState: Equatable, Sendable {
    case down
    /// A `Connect` is under way (its attempt number, so a cancelled one can tell).
    case connecting(attempt: Int)
    case up
    /// `Disconnect` was called; the link goes down shortly.
    case disconnecting
}

/// One `Device1` object: a peripheral as one adapter knows it.
struct DeviceState: Sendable {
    let adapterName: String
    let adapterPath: ObjectPath
    /// Index of the peripheral in the world.
    let peripheral: Int
    let path: ObjectPath
    let address: String
    let addressType: String

    var name: String?
    /// An alias a client set; `Alias` falls back to the name, then the address with dashes.
    var customAlias: String?
    var trusted = false
    var rssi: Int16?
    var txPower: Int16?
    var uuids: [String] = []
    var manufacturerData: [UInt16: [UInt8]]?
    var serviceData: [String: [UInt8]]?
    var modalias: String?
    var link: LinkState = .down
    var servicesResolved = false
    /// Temporary devices are removed `TemporaryTimeout` after they were last seen.
    var temporary = true
    /// The GATT database as exported under this device (nil before the first resolution).
    var gatt: GattDatabase?
    /// The peripheral's database changed while the link was down: re-read it on connecting.
    var gattStale = false
    /// Notify sessions by characteristic path: client → registered with the peripheral.
    var notifySessions: [ObjectPath: [String: Bool]] = [:]
    /// Characteristics whose `Notifying` is true.
    var notifying: Set<ObjectPath> = []
    var attempts = 0

    init(adapterName: String, adapterPath: ObjectPath, peripheral: Int, spec: MockPeripheral) {
        self.adapterName = adapterName
        self.adapterPath = adapterPath
        self.peripheral = peripheral
        self.address = spec.address
        self.addressType = spec.addressType
        self.path = BluetoothdAPI.devicePath(adapter: adapterPath, address: spec.address)
    }

    var alias: String { customAlias ?? name ?? address.replacingColons(with: "-") }

    /// What `Connected` shows: true from the link coming up until it is down again.
    var connectedProperty: Bool { link == .up || link == .disconnecting }
}

/// What a GATT object path stands for.
enum GattObject: Sendable {
    case service(device: ObjectPath, GattServiceNode)
    case characteristic(device: ObjectPath, GattCharacteristicNode)
    case descriptor(device: ObjectPath, characteristic: ObjectPath, GattCharacteristicNode, GattDescriptorNode)
}
