import SensorModel
import ThermometerProfiles

/// The UTF-8 bytes of a string, as a characteristic value.
func bytes(_ text: String) -> [UInt8] {
    Array(text.utf8)
}

extension Result {
    /// The success value, or `nil`.
    var success: Success? {
        if case .success(let value) = self { value } else { nil }
    }

    /// The failure, or `nil`.
    var failure: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}

/// Celsius from Fahrenheit by the exact formula, rounded as readings are.
func roundedCelsius(fahrenheit: Double) -> Double {
    ((fahrenheit - 32) * 5 / 9 * 100).rounded(.toNearestOrAwayFromZero) / 100
}
