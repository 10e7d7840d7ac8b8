public import SensorModel

/// ThermoPro wireless probe thermometers (TP960R, TP962R, TP970R, TP972S): manufacturer data
/// whose company id is data, from devices named `TP96…` or `TP97…`, as Home Assistant's
/// thermopro-ble reads them.
///
/// The data is the company id's two bytes (little-endian, as sent) followed by the payload
/// BlueZ files under it, one probe an advertisement. 7 bytes (13 with 6 more, not read),
/// little-endian: byte 0 the probe (0-based: the reading's ``Measurement/probe`` is one more),
/// bytes 1-2 its internal temperature (uint16, whole °C + 30), 3-4 its battery (uint16, mV,
/// reported as the voltage: the library works a percentage out of it by a fitted curve),
/// 5-6 its ambient temperature (left out: a probe's reading has one temperature). A `TP97…`
/// sends 23 bytes for a multi-point probe: byte 0 the probe, 3-4 the battery, 5-8 its tip
/// temperature (float32, °F + 54; the library's °C rounded to 0.1); its ambient, centre and
/// end temperatures are left out. Other lengths are nobody's (the library reads nothing of
/// them). A probe byte 255 (probe 256) is ``ReadingError/Kind/outOfRange``, as is an
/// implausible temperature. No counter.
public struct ThermoProProbeProfile: NamedManufacturerDataProfile {
    /// The length of a probe's data (company id included), and with the 6 bytes some append.
    static let lengths = [7, 13]
    /// The length of a multi-point probe's data (`TP97…`).
    static let multiPointLength = 23

    /// The family: no counter.
    public static let family = SensorFamily(
        id: "thermopro-probe", name: "ThermoPro probe thermometer", manufacturer: "ThermoPro",
        models: ["TP960R", "TP962R", "TP970R", "TP972S"], quantities: [.temperature, .voltage])

    /// The names the library reads as probe thermometers: `TP96…`, `TP97…`.
    static let names = LocalNameMatch([.hasPrefix("TP96"), .hasPrefix("TP97")])
    /// The names the library reads as probe thermometers: `TP96…`, `TP97…`.
    public var manufacturerDataNames: LocalNameMatch? { Self.names }

    /// Creates the profile.
    public init() {}

    /// Decodes one probe's data of 7, 13 or (`TP97…`) 23 bytes; other lengths are nobody's.
    public func decode(data: [UInt8], payload: [UInt8], name: String) -> Result<AdvertisementReading, ReadingError>? {
        let multiPoint = data.count == Self.multiPointLength && name.hasPrefix("TP97")
        guard Self.lengths.contains(data.count) || multiPoint else { return nil }
        return catchingReadingError { () throws(ReadingError) in
            guard data[0] < UInt8.max else {
                throw ReadingError(.outOfRange, raw: payload, detail: "ThermoPro probe \(Int(data[0]) + 1)")
            }
            var builder = QuantitiesBuilder(profile: Self.family.id, raw: payload)
            builder.modelIndex = Self.family.modelIndex(named: name)
            if multiPoint {
                try builder.add(.temperature, try Self.tipTenths(data, raw: payload), per: 10)
            } else {
                try builder.add(.temperature, data.unsignedLittleEndian(at: 1, count: 2) - 30)
            }
            try builder.add(.voltage, data.unsignedLittleEndian(at: 3, count: 2), per: 1000)
            var reading = try builder.reading(counter: nil, counterModulus: nil)
            reading.measurement.probe = data[0] + 1
            return reading
        }
    }

    /// A multi-point probe's tip temperature in tenths of a °C: the float32 at byte 5, °F with
    /// 54 added, converted and rounded half to even as the library's `round(x, 1)`.
    ///
    /// - Throws: ``ReadingError/Kind/unsupportedValue`` for a float that is no temperature.
    static func tipTenths(_ data: [UInt8], raw: [UInt8]) throws(ReadingError) -> Int {
        let fahrenheit = Double(Float(bitPattern: UInt32(data.unsignedLittleEndian(at: 5, count: 4))))
        guard fahrenheit.isFinite, abs(fahrenheit) < 1e6 else {
            throw ReadingError(.unsupportedValue, raw: raw, detail: "ThermoPro tip temperature \(fahrenheit) °F")
        }
        return Int(((fahrenheit - 54 - 32) * 5 / 9 * 10).rounded(.toNearestOrEven))
    }
}
