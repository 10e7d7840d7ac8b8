/// One decoded temperature, normalised to degrees Celsius.
///
/// The profiles build readings only from values that passed every check in
/// ``ReadingLimits``; ``raw`` and ``rawText`` keep what the device actually sent.
public struct TemperatureReading: Sendable, Equatable {
    /// The temperature in degrees Celsius, rounded to the nearest 0.01 °C.
    public var celsius: Double
    /// The unit the device sent the value in.
    public var unit: TemperatureUnit
    /// The number as the device sent it, in ``unit``, before conversion or rounding.
    public var value: Double
    /// The characteristic value exactly as received.
    public var raw: [UInt8]
    /// The value's text with tolerated padding removed, for text profiles; `nil` for binary ones.
    public var rawText: String?

    /// Creates a reading from parts that are stored as given (no conversion, rounding or checks).
    public init(
        celsius: Double, unit: TemperatureUnit, value: Double, raw: [UInt8], rawText: String? = nil
    ) {
        self.celsius = celsius
        self.unit = unit
        self.value = value
        self.raw = raw
        self.rawText = rawText
    }
}
