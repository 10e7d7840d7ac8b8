/// The unit a thermometer reported a temperature in.
public enum TemperatureUnit: String, Sendable, Codable, CaseIterable {
    /// Degrees Celsius, the unit every ``Measurement`` is normalised to.
    case celsius = "C"
    /// Degrees Fahrenheit, the Pi cputemp peripheral's default.
    case fahrenheit = "F"

    /// Converts a temperature in this unit to degrees Celsius, without rounding.
    ///
    /// Fahrenheit uses the exact formula (F − 32) × 5/9.
    public func celsius(from value: Double) -> Double {
        switch self {
        case .celsius: value
        case .fahrenheit: (value - 32) * 5 / 9
        }
    }
}
