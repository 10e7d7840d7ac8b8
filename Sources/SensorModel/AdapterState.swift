/// The Bluetooth adapter's state, named as CoreBluetooth names a central manager's state.
public enum AdapterState: String, Sendable, Codable, CaseIterable {
    /// Not known yet (before the first look at BlueZ).
    case unknown
    /// bluetoothd went away and may come back.
    case resetting
    /// No bluetoothd, or no adapter that can act as a central.
    case unsupported
    /// The D-Bus policy refused access to BlueZ.
    case unauthorized
    /// The adapter is off (or rfkill-blocked).
    case poweredOff
    /// The adapter is on: scanning and connecting work.
    case poweredOn
}
