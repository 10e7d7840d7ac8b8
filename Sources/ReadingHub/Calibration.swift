public import SensorModel

/// A device's configured calibration: an offset added to each of its decoded quantities
/// (`calibrate ADDRESS temperature = +0.3` in blectld.conf).
public struct Calibration: Equatable, Sendable {
    /// The offsets, in each quantity's unit; an absent quantity is left as decoded.
    public var offsets: Quantities

    /// The quantities that can be calibrated, with the largest offset allowed for each.
    public static let bounds: [(quantity: Quantity, name: String, limit: Double)] = [
        (.temperature, "temperature", 20), (.humidity, "humidity", 50),
    ]

    /// The configuration's word for `quantity` (`temperature`, `humidity`).
    public static func name(of quantity: Quantity) -> String {
        bounds.first { $0.quantity == quantity }?.name ?? quantity.key
    }

    /// Offsets `offsets`.
    public init(_ offsets: Quantities = Quantities()) {
        self.offsets = offsets
    }

    /// `measurement` with the offsets added (humidity kept within 0…100 %RH) and the values
    /// it had before in ``SensorModel/Measurement/uncalibrated``; unchanged when none of
    /// its quantities has an offset.
    public func applied(to measurement: Measurement) -> Measurement {
        var result = measurement
        var uncalibrated = Quantities()
        for (quantity, offset) in offsets.present {
            guard let value = measurement.quantities[quantity] else { continue }
            var calibrated = ((value + offset) * 100).rounded() / 100
            if quantity == .humidity { calibrated = min(max(calibrated, 0), 100) }
            result.quantities[quantity] = calibrated
            uncalibrated[quantity] = value
        }
        if !uncalibrated.isEmpty { result.uncalibrated = uncalibrated }
        return result
    }
}
