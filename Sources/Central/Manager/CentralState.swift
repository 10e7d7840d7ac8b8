/// The central's view of Bluetooth, shaped like CoreBluetooth's `CBManagerState`.
public enum CentralState: String, Sendable, Codable, CaseIterable {
    /// Not known yet (before the first BlueZ snapshot).
    case unknown
    /// bluetoothd went away and may come back.
    case resetting
    /// No bluetoothd, or no adapter that can act as a central.
    case unsupported
    /// The D-Bus policy refused us access to BlueZ.
    case unauthorized
    /// The adapter is off.
    case poweredOff
    /// The adapter is on: scanning and connecting work.
    case poweredOn
}
