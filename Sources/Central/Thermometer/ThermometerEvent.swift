public import BlueZClient
public import ThermometerProfiles

/// What the thermometer monitor reports to the daemon.
public enum ThermometerEvent: Sendable {
    /// The adapter's state changed (adapter interface name, when one is chosen).
    case adapterState(adapter: String?, state: CentralState)
    /// A peripheral advertised (first sighting, a new name, or a periodic RSSI refresh).
    case peripheralSeen(address: BluetoothAddress, name: String?, rssi: Int16?, isThermometer: Bool)
    /// BlueZ dropped a peripheral.
    case peripheralLost(address: BluetoothAddress)
    /// A thermometer is connected and subscribed.
    case connected(address: BluetoothAddress, name: String?)
    /// A thermometer's link or subscription was lost.
    case disconnected(address: BluetoothAddress, reason: String)
    /// A temperature.
    case reading(address: BluetoothAddress, name: String?, TemperatureReading)
    /// A value that is not a temperature (kept with its raw bytes).
    case readingError(address: BluetoothAddress, name: String?, ReadingError)
    /// Something worth a log line (level: 3 error … 7 debug, as syslog).
    case log(level: Int, message: String)
}
