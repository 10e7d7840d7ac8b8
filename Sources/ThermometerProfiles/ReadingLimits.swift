import SensorModel

/// The plausibility limits every profile applies before it returns a reading.
///
/// They exist so a corrupted or hostile value becomes a ``ReadingError`` instead of a
/// number in someone's graph.
public enum ReadingLimits {
    /// Temperatures accepted, in °C, bounds included, checked before rounding.
    ///
    /// −60 °C is below any place a Pi or a body thermometer works; 200 °C is far above any
    /// CPU that still answers (a Pi throttles at 85 °C). Outside this, the value is wrong.
    public static let plausibleCelsius: ClosedRange<Double> = -60...200

    /// The longest characteristic value decoded, in bytes.
    ///
    /// The Pi sends about 7 bytes and a full Health Thermometer measurement is 13; anything
    /// beyond 64 is not a thermometer value, and refusing it early bounds the work per value.
    public static let maximumValueLength = 64

    /// The step a temperature is rounded to: 0.01 °C.
    public static let celsiusResolution = 0.01

    /// Steps per degree; dividing by this (exact) rather than multiplying by 0.01 (inexact)
    /// gives the Double nearest to, say, 44.72.
    static let stepsPerDegree = 100.0
}

extension ReadingLimits {
    /// Rejects values that are empty or too long, before any profile looks inside them.
    static func checkLength(_ value: [UInt8]) -> ReadingError? {
        if value.count > maximumValueLength {
            return ReadingError(
                .oversized, raw: value,
                detail: "\(value.count) bytes, limit \(maximumValueLength)")
        }
        if value.isEmpty { return ReadingError(.empty, raw: value) }
        return nil
    }

    /// Converts a decoded number to Celsius, checks it is plausible, and rounds it.
    static func reading(
        _ profile: ProfileID, value: Double, unit: TemperatureUnit, raw: [UInt8], rawText: String? = nil
    ) -> Result<Measurement, ReadingError> {
        guard value.isFinite else {
            return .failure(ReadingError(.notANumber, raw: raw))
        }
        let celsius = unit.celsius(from: value)
        guard plausibleCelsius.contains(celsius) else {
            return .failure(
                ReadingError(
                    .outOfRange, raw: raw,
                    detail: "\(value) \(unit.rawValue) is outside \(plausibleCelsius) °C"))
        }
        let rounded = (celsius * stepsPerDegree).rounded(.toNearestOrAwayFromZero) / stepsPerDegree
        // Adding zero turns −0.0 into 0.0, so "-0" never reaches JSON or logs.
        return .success(
            Measurement(
                profile: profile, quantities: Quantities([.temperature: rounded + 0]), unit: unit,
                raw: rawText ?? raw.hexString))
    }
}
