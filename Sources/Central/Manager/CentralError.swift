public import SensorModel
public import BlueZClient

/// Why a central operation failed.
public enum CentralError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The central is not powered on (state given).
    case notPoweredOn(AdapterState)
    /// The peripheral's object vanished from BlueZ (rescan to find it again).
    case peripheralGone
    /// The adapter of the peripheral's object (its interface name) is switched off, while
    /// another adapter in use is on: look for the peripheral through that one.
    case adapterOff(String)
    /// The link went down during the operation.
    case disconnected
    /// `ServicesResolved` did not come within the deadline.
    case servicesNotResolved
    /// The operation did not finish in time.
    case timeout(String)
    /// No service or characteristic with the wanted UUID.
    case notFound(String)
    /// bluetoothd answered with an error.
    case bluez(BlueZError)
    /// The kernel's management socket cannot be listened to (why, and what would make it work).
    case managementSocket(String)

    /// A one-line account of the error for logs and users.
    public var description: String {
        switch self {
        case .notPoweredOn(let state): "Bluetooth is not powered on (state \(state.rawValue))"
        case .peripheralGone: "the peripheral is no longer known to BlueZ"
        case .adapterOff(let adapter): "adapter \(adapter) is switched off"
        case .disconnected: "the link went down"
        case .servicesNotResolved: "GATT services were not resolved in time"
        case .timeout(let what): "timed out: \(what)"
        case .notFound(let what): "not found: \(what)"
        case .bluez(let error): error.description
        case .managementSocket(let reason): reason
        }
    }
}
