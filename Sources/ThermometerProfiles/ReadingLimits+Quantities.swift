public import SensorModel

extension ReadingLimits {
    /// Relative humidity accepted, in %, bounds included.
    public static let plausibleHumidity: ClosedRange<Double> = 0...100

    /// Battery charge accepted, in %, bounds included.
    public static let plausibleBattery: ClosedRange<Double> = 0...100

    /// Air pressure accepted, in hPa, bounds included.
    ///
    /// From below the summit of Everest (about 337 hPa) to above the highest sea-level pressure
    /// ever recorded (1084 hPa): anything outside is a broken sensor, not weather.
    public static let plausiblePressure: ClosedRange<Double> = 300...1100

    /// Battery voltage accepted, in V, bounds included: no sensor here runs on more than 10 V.
    public static let plausibleVoltage: ClosedRange<Double> = 0...10

    /// Carbon dioxide accepted, in ppm, bounds included: the range of the NDIR and
    /// photoacoustic sensors these devices carry (Sensirion's SCD4x reads up to 40,000 ppm).
    public static let plausibleCO2: ClosedRange<Double> = 0...40_000

    /// The values of `quantity` accepted, bounds included, checked before rounding.
    public static func plausibleRange(of quantity: Quantity) -> ClosedRange<Double> {
        switch quantity {
        case .temperature: plausibleCelsius
        case .humidity: plausibleHumidity
        case .battery: plausibleBattery
        case .pressure: plausiblePressure
        case .voltage: plausibleVoltage
        case .co2: plausibleCO2
        case .dewPoint: plausibleCelsius
        }
    }

    /// Steps per unit a quantity is rounded to: 0.01 °C, 0.01 %, 1 %, 0.01 hPa, 0.001 V,
    /// 1 ppm, 0.01 °C of dew point.
    ///
    /// Each is the finest step any decoded format sends, so rounding loses nothing but the
    /// noise of Ruuvi's 0.005 °C and 0.0025 % steps.
    public static func stepsPerUnit(of quantity: Quantity) -> Int {
        switch quantity {
        case .temperature, .humidity, .pressure, .dewPoint: 100
        case .battery, .co2: 1
        case .voltage: 1000
        }
    }
}
