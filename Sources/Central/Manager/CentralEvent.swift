public import SensorModel
public import BlueZClient

/// Something the central observed, delivered after its state is updated.
public enum CentralEvent: Sendable {
    /// The central's state changed.
    case stateChanged(AdapterState)
    /// A peripheral advertised while we scan and matched our scan's filter.
    case discovered(Discovery)
    /// BlueZ dropped a device object (out of range for a while, or removed).
    case peripheralRemoved(BluetoothAddress, BlueZPath)
    /// A link went down (`Connected=false`).
    case disconnected(BluetoothAddress, BlueZPath)
    /// GATT objects appeared or vanished under a connected peripheral (its
    /// GATT application restarted, or services were resolved).
    case servicesChanged(BluetoothAddress, BlueZPath)
    /// A characteristic's value changed: a notification, or the echo of a read.
    case valueUpdated(BlueZPath, [UInt8])
    /// A device on our adapter advertised service or manufacturer data, whether or not we
    /// scan: the entries of this one update (a new device: all it carries).
    case advertised(BluetoothAddress, BlueZPath, AdvertisementUpdate)
    /// Our discovery session on an adapter went on or off.
    case discovering(BlueZPath, Bool)
    /// A device was heard on an adapter after ``CentralManager/reportNextSound(on:)`` asked
    /// for it (once).
    case heardAgain(BlueZPath)
    /// An adapter refused `StartDiscovery` (why, in words); it is tried again later.
    case discoveryRefused(BlueZPath, String)
    /// The adapters in use changed: one came or went, was powered on or off (see
    /// ``CentralManager/adapterPaths`` and ``CentralManager/missingAdapters``).
    case adaptersChanged
}
