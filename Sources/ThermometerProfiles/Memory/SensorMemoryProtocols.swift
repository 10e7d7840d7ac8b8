public import SensorModel

/// The sensor-memory protocols blectl speaks, found by the family a sensor advertises as.
public enum SensorMemoryProtocols {
    /// Every protocol; a new one is one line here.
    public static let all: [any SensorMemoryProtocol] = [
        PvvxMemory(), XiaomiStockMemory(), XiaomiStockMemory(.lywsd02), ThermoProClock(),
    ]

    /// The protocol of sensors advertising as `family` (and, where a family's models speak
    /// different ones, of `model`), if they keep a memory blectl reads.
    public static func forFamily(_ family: ProfileID, model: String? = nil) -> (any SensorMemoryProtocol)? {
        let spoken = all.filter { $0.family.id == family || $0.alsoAdvertisedAs.contains(family) }
        guard let model else { return spoken.first }
        return spoken.first { $0.models?.contains(model) ?? true }
    }

    /// The protocol of a sensor heard live as `measurement`, if its model keeps a memory
    /// blectl reads (a family may hold models that keep none, or speak different ones).
    public static func forMeasurement(_ measurement: Measurement) -> (any SensorMemoryProtocol)? {
        all.first { memory in
            (memory.family.id == measurement.profile || memory.alsoAdvertisedAs.contains(measurement.profile))
                && memory.keepsMemory(measurement)
        }
    }
}
