/// Something the Bluetooth side observed, as its sources report it to the hub.
///
/// The hub adds sequence numbers and times; the sources (the GATT thermometer monitor, the
/// advertisement monitor, the host's CPU) know nothing of the hub or its outputs.
public enum SensorEvent: Sendable, Equatable {
    /// The adapter changed state (its interface name, e.g. `hci0`, once one is chosen), with
    /// why it is not powered on, for people.
    case adapterState(adapter: String?, AdapterState, reason: String?)
    /// A peripheral advertised: first sighting, a new name, or a periodic RSSI refresh.
    case peripheralSeen(Sighting)
    /// BlueZ dropped a peripheral.
    case peripheralLost(BluetoothAddress)
    /// A thermometer is connected and subscribed.
    case connected(BluetoothAddress, name: String?)
    /// A thermometer's link or subscription was lost; `reason` is for people.
    case disconnected(BluetoothAddress, reason: String)
    /// A thermometer waits for a link: `max_connections` links are held (by thermometers
    /// known to work, or being tried); `reason` is for people.
    case leftOut(BluetoothAddress, name: String?, reason: String)
    /// A value was decoded.
    case reading(BluetoothAddress, name: String?, Measurement)
    /// A value arrived that could not be decoded (kept with its raw bytes).
    case readingError(BluetoothAddress, name: String?, ReadingError)
}

/// A peripheral heard advertising.
public struct Sighting: Sendable, Equatable {
    /// Its address.
    public var address: BluetoothAddress
    /// Its advertised (or remembered) name.
    public var name: String?
    /// The signal strength in dBm, when the adapter reported one.
    public var rssi: Int?
    /// Whether it is a thermometer the daemon reads.
    public var isThermometer: Bool

    /// Creates a sighting.
    public init(address: BluetoothAddress, name: String?, rssi: Int?, isThermometer: Bool) {
        self.address = address
        self.name = name
        self.rssi = rssi
        self.isThermometer = isThermometer
    }
}
