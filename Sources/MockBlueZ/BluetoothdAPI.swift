import DBusCore

/// Bus names, interfaces and paths of the BlueZ 5.66 D-Bus API the mock serves.
enum BluetoothdAPI {
    static let busName = "org.bluez"
    static let rootPath: ObjectPath = "/org/bluez"

    static let adapter = "org.bluez.Adapter1"
    static let device = "org.bluez.Device1"
    static let service = "org.bluez.GattService1"
    static let characteristic = "org.bluez.GattCharacteristic1"
    static let descriptor = "org.bluez.GattDescriptor1"
    static let gattManager = "org.bluez.GattManager1"
    static let media = "org.bluez.Media1"
    static let networkServer = "org.bluez.NetworkServer1"
    static let advertisingManager = "org.bluez.LEAdvertisingManager1"
    /// Offered only by `bluetoothd --experimental` (5.66).
    static let advertisementMonitorManager = "org.bluez.AdvertisementMonitorManager1"
    static let agentManager = "org.bluez.AgentManager1"
    static let profileManager = "org.bluez.ProfileManager1"
    static let healthManager = "org.bluez.HealthManager1"

    /// The object path of a device: `dev_` and the address with `_` for `:`.
    /// The six bytes of an address written `XX:XX:XX:XX:XX:XX`, most significant first.
    static func addressBytes(_ address: String) -> [UInt8] {
        address.split(separator: ":").compactMap { UInt8($0, radix: 16) }
    }

    static func devicePath(adapter: ObjectPath, address: String) -> ObjectPath {
        adapter.appending("dev_" + address.uppercased().replacingColons(with: "_"))!
    }
}

extension String {
    /// The address with every `:` replaced, as BlueZ spells addresses in paths and aliases.
    func replacingColons(with replacement: Character) -> String {
        String(map { $0 == ":" ? replacement : $0 })
    }
}

/// The errors bluetoothd 5.66 replies with (`src/error.c`), name and message alike.
enum BluetoothdError {
    static func failed(_ message: String) -> DBusError {
        DBusError(name: "org.bluez.Error.Failed", message: message)
    }
    static let notReady = DBusError(name: "org.bluez.Error.NotReady", message: "Resource Not Ready")
    /// `btd_error_busy`: a second `StartDiscovery` from the same client.
    static let busy = DBusError(name: "org.bluez.Error.InProgress", message: "Operation already in progress")
    /// `btd_error_in_progress`.
    static let inProgress = DBusError(name: "org.bluez.Error.InProgress", message: "In Progress")
    static let invalidArguments = DBusError(
        name: "org.bluez.Error.InvalidArguments", message: "Invalid arguments in method call")
    static func invalidArguments(_ message: String) -> DBusError {
        DBusError(name: "org.bluez.Error.InvalidArguments", message: message)
    }
    static let notSupported = DBusError(name: "org.bluez.Error.NotSupported", message: "Operation is not supported")
    static let notConnected = DBusError(name: "org.bluez.Error.NotConnected", message: "Not Connected")
    static let doesNotExist = DBusError(name: "org.bluez.Error.DoesNotExist", message: "Does Not Exist")
    static let alreadyExists = DBusError(name: "org.bluez.Error.AlreadyExists", message: "Already Exists")
    static func notPermitted(_ message: String) -> DBusError {
        DBusError(name: "org.bluez.Error.NotPermitted", message: message)
    }

    /// What a failed LE connection reports most often on a Pi (RF trouble, a
    /// connection attempt that timed out): `ERR_LE_CONN_ABORT_BY_LOCAL`.
    static let connectionAbortedByLocal = failed("le-connection-abort-by-local")
    /// `strerror(EALREADY)`: `Connect` while another attempt is under way.
    static let connectAlreadyInProgress = failed("Operation already in progress")
    static let notConnectedGatt = failed("Not connected")
    /// Newer BlueZ (5.7x): `Connect` on a device whose link is already up.
    static let alreadyConnected = DBusError(name: "org.bluez.Error.AlreadyConnected", message: "Already Connected")
}
