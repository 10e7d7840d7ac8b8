public import SensorModel

/// The sensor-memory protocols blectl speaks, found by the family a sensor advertises as.
public enum SensorMemoryProtocols {
    /// Every protocol; a new one is one line here.
    public static let all: [any SensorMemoryProtocol] = [PvvxMemory()]

    /// The protocol of sensors advertising as `family`, if they keep a memory blectl reads.
    public static func forFamily(_ family: ProfileID) -> (any SensorMemoryProtocol)? {
        all.first { $0.family.id == family || $0.alsoAdvertisedAs.contains(family) }
    }
}
