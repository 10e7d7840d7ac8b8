public import SensorModel

/// The sensor-memory protocols blectl speaks, found by the family a sensor advertises as.
public enum SensorMemoryProtocols {
    /// Every protocol; a new one is one line here.
    public static let all: [any SensorMemoryProtocol] = [PvvxMemory(), XiaomiStockMemory(), ThermoProClock()]

    /// The protocol of sensors advertising as `family`, if they keep a memory blectl reads.
    public static func forFamily(_ family: ProfileID) -> (any SensorMemoryProtocol)? {
        all.first { $0.family.id == family || $0.alsoAdvertisedAs.contains(family) }
    }

    /// The protocol of a sensor heard live as `measurement`, if its model keeps a memory
    /// blectl reads (a family may hold models that keep none).
    public static func forMeasurement(_ measurement: Measurement) -> (any SensorMemoryProtocol)? {
        forFamily(measurement.profile).flatMap { $0.keepsMemory(measurement) ? $0 : nil }
    }
}
