/// The unit a thermometer reported its value in.
public enum TemperatureUnit: String, Codable, CaseIterable, Sendable {
    /// Degrees Celsius, `"C"`.
    case celsius = "C"
    /// Degrees Fahrenheit, `"F"`.
    case fahrenheit = "F"
}

/// The Bluetooth adapter's state, named as CoreBluetooth names a central manager's state.
public enum AdapterState: String, Codable, CaseIterable, Sendable {
    /// Not known yet.
    case unknown
    /// Being reset; a new state follows.
    case resetting
    /// No usable adapter (none present, or no LE support).
    case unsupported
    /// The daemon may not use it (D-Bus policy).
    case unauthorized
    /// Present but switched off (or rfkill-blocked).
    case poweredOff
    /// Ready.
    case poweredOn
}
