public import SensorModel

/// Inkbird's iBBQ probe thermometers (IBT-2X, IBT-4XS, IBT-6XS): manufacturer data whose
/// company id is data, from a device whose name holds `iBBQ` or `xBBQ` anywhere, ignoring
/// case, little-endian, as Home Assistant's inkbird-ble reads them.
///
/// The data is the company id's two bytes (little-endian, as sent) followed by the payload;
/// its length tells the number of probes: 12, 14, 18 or 22 bytes (a payload of 10, 12, 16 or
/// 20), 1, 2, 4 or 6 probes (inkbird-ble's iBBQ-1, -2, -4, -6). Bytes 2-9 (the payload's
/// 0-7: zeros and the device's address) are not read; from byte 10 (the payload's 8) each
/// probe's temperature, sint16 × 0.1 °C. A probe sending 0xFFFF is not plugged in: no
/// reading for it, as inkbird-ble drops it (nothing at all when none is). Each probe is a
/// reading of its own with its number, counted from 1 by its place in the data
/// (``AdvertisementReading/probes``). A probe outside the plausible temperatures (a grill
/// probe above 200 °C) is left out with its error, the others stand. Other lengths are
/// nobody's. No battery (inkbird-ble reads none from these advertisements), no counter.
public struct InkbirdBBQProfile: NamedManufacturerDataProfile {
    /// The family: no counter.
    public static let family = SensorFamily(
        id: "inkbird-bbq", name: "Inkbird iBBQ probe thermometer", manufacturer: "INKBIRD",
        models: ["IBT-2X", "IBT-4XS", "IBT-6XS"], quantities: [.temperature])

    /// The probes by the data's length (the company id's two bytes included).
    static let probeCounts: [Int: Int] = [12: 1, 14: 2, 18: 4, 22: 6]
    /// The model by its number of probes (inkbird-ble names the one-probe kind iBBQ-1 only).
    static let models: [Int: String] = [2: "IBT-2X", 4: "IBT-4XS", 6: "IBT-6XS"]
    /// Where the first probe's temperature is in the data.
    static let firstProbeOffset = 10
    /// What a probe not plugged in sends (0xFFFF, read signed).
    static let unplugged = -1

    /// Any name holding `iBBQ` or `xBBQ`, ignoring case, as inkbird-ble looks for them.
    static let names = LocalNameMatch([.containsIgnoringCase("iBBQ"), .containsIgnoringCase("xBBQ")])
    /// Any name holding `iBBQ` or `xBBQ`, ignoring case.
    public var manufacturerDataNames: LocalNameMatch? { Self.names }

    /// Creates the profile.
    public init() {}

    /// Decodes the probes the data's length tells.
    public func decode(data: [UInt8], payload: [UInt8], name: String) -> Result<AdvertisementReading, ReadingError>? {
        guard let count = Self.probeCounts[data.count] else { return nil }
        return catchingReadingError { () throws(ReadingError) -> AdvertisementReading? in
            var measurements: [Measurement] = []
            var dropped: [ReadingError] = []
            for index in 0..<count {
                let value = data.signedLittleEndian(at: Self.firstProbeOffset + 2 * index, count: 2)
                guard value != Self.unplugged else { continue }
                var builder = QuantitiesBuilder(profile: Self.family.id, raw: payload)
                builder.modelIndex = Self.models[count].flatMap(Self.family.modelIndex(of:))
                do throws(ReadingError) {
                    try builder.add(.temperature, value, per: 10)
                } catch {
                    // One probe out of range (a grill above 200 °C) does not cost the others.
                    var error = error
                    error.detail = "probe \(index + 1): " + (error.detail ?? "")
                    dropped.append(error)
                    continue
                }
                var measurement = builder.measurement()
                measurement.probe = UInt8(index + 1)
                measurements.append(measurement)
            }
            guard let first = measurements.first else {
                if let error = dropped.first { throw error }
                return nil
            }
            var reading = AdvertisementReading(
                measurement: first, counter: nil, counterModulus: nil, dropped: dropped)
            reading.probes = Array(measurements.dropFirst())
            return reading
        }
    }
}
