public import SensorModel

/// A device's current values when it has several probes (a meat thermometer): each probe's
/// newest reading, by probe number, and the unit's own newest reading of no probe beside them.
/// Empty for a device without probes, whose newest reading is its one current value.
public struct ProbeReadings: Sendable, Equatable {
    /// Each probe's newest reading, by probe number.
    public private(set) var probes: [Reading] = []
    /// The newest reading of no probe, once the device has shown probes.
    public private(set) var unit: Reading?

    /// None yet.
    public init() {}

    /// Keeps `reading` as its probe's newest (replacing it, or in its place by number); one of
    /// no probe as the unit's, once the device has shown probes.
    public mutating func keep(_ reading: Reading) {
        guard let probe = reading.measurement.probe else {
            if !probes.isEmpty { unit = reading }
            return
        }
        let index = probes.firstIndex { ($0.measurement.probe ?? 0) >= probe } ?? probes.endIndex
        if index < probes.endIndex, probes[index].measurement.probe == probe {
            probes[index] = reading
        } else {
            probes.insert(reading, at: index)
        }
    }

    /// The current values: the unit's and each probe's newest readings, or `latest` alone for
    /// a device without probes.
    public func current(latest: Reading?) -> [Reading] {
        probes.isEmpty ? latest.map { [$0] } ?? [] : (unit.map { [$0] } ?? []) + probes
    }
}
