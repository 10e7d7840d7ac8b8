import DBusCore

/// A typed view of an `org.bluez.GattService1` object.
public struct GattService: Sendable, Equatable {
    /// The object path (handle based, such as `…/service0010`).
    public let path: BlueZPath
    /// The 128-bit UUID, lower case.
    public let uuid: String
    /// The device the service belongs to.
    public let device: BlueZPath?
    /// Whether the service is primary.
    public let primary: Bool

    /// Reads the view from an object's properties.
    init(path: ObjectPath, _ reader: inout PropertyReader) {
        self.path = BlueZPath(path)
        uuid = (reader.read("UUID", as: String.self) ?? "").lowercased()
        device = reader.read("Device", as: ObjectPath.self).map(BlueZPath.init)
        primary = reader.read("Primary") ?? true
    }
}

/// A typed view of an `org.bluez.GattCharacteristic1` object.
public struct GattCharacteristic: Sendable, Equatable {
    /// The object path (handle based, such as `…/service0010/char0011`).
    public let path: BlueZPath
    /// The 128-bit UUID, lower case.
    public let uuid: String
    /// The service the characteristic belongs to.
    public let service: BlueZPath?
    /// Properties such as `read`, `notify`, `write`.
    public let flags: [String]
    /// Whether notifications are on (for any client).
    public let notifying: Bool
    /// The cached value: the last one read or notified.
    public let value: [UInt8]

    /// Reads the view from an object's properties.
    init(path: ObjectPath, _ reader: inout PropertyReader) {
        self.path = BlueZPath(path)
        uuid = (reader.read("UUID", as: String.self) ?? "").lowercased()
        service = reader.read("Service", as: ObjectPath.self).map(BlueZPath.init)
        flags = reader.read("Flags") ?? []
        notifying = reader.read("Notifying") ?? false
        value = reader.read("Value") ?? []
    }
}

/// A typed view of an `org.bluez.GattDescriptor1` object.
public struct GattDescriptor: Sendable, Equatable {
    /// The object path (such as `…/char0011/desc0013`).
    public let path: BlueZPath
    /// The 128-bit UUID, lower case.
    public let uuid: String
    /// The characteristic the descriptor belongs to.
    public let characteristic: BlueZPath?
    /// The cached value.
    public let value: [UInt8]

    /// Reads the view from an object's properties.
    init(path: ObjectPath, _ reader: inout PropertyReader) {
        self.path = BlueZPath(path)
        uuid = (reader.read("UUID", as: String.self) ?? "").lowercased()
        characteristic = reader.read("Characteristic", as: ObjectPath.self).map(BlueZPath.init)
        value = reader.read("Value") ?? []
    }
}
