public import SensorModel

/// Govee meat thermometers H5181-H5198 (several probes): manufacturer data under the company
/// ids Home Assistant's govee-ble knows each model by, big-endian, as govee-ble reads them.
///
/// Bytes 6 (H5184, H5198) the pair of probes this advertisement carries (1, 65, 129, 193:
/// probes 1 and 2; 2, 66, 130, 194: probes 3 and 4; any other is a reading error, a probe
/// number out of range), then from byte 8 each probe's temperature (sint16 × 0.01 °C) and its
/// alarm setting (not read): H5181 and H5183 one probe (14 bytes); H5182 and H5184 two, the
/// second at 13 (17 bytes); H5185 two, the second at 14 (20 bytes); H5198 two with a low
/// alarm each, the second at 14 (20 bytes); H5191 one, and the unit's own temperature at 14
/// (20 bytes, a reading without a probe). A negative probe value (0xFFFF: no probe plugged
/// in) reads 0 °C, as govee-ble shows it. An iBeacon glued on at the end (25 bytes with
/// `INTELLI_ROCKS`) is cut off first. Each probe is a reading of its own
/// (``AdvertisementReading/probes``). No counter.
public struct GoveeMeatProfile: ContextualAdvertisementProfile {
    /// A model's layout: its payload length, where each probe's temperature is, whether
    /// byte 6 picks the pair of probes, and where a unit's own temperature is.
    struct Layout: Sendable {
        let model: String
        let length: Int
        let probeOffsets: [Int]
        var pairedBySensorID = false
        var ownTemperatureOffset: Int?
    }

    /// The models by the company ids govee-ble knows them by.
    static let layouts: [UInt16: Layout] = {
        let h5181 = Layout(model: "H5181", length: 14, probeOffsets: [8])
        let h5183 = Layout(model: "H5183", length: 14, probeOffsets: [8])
        let h5185 = Layout(model: "H5185", length: 20, probeOffsets: [8, 14])
        var table: [UInt16: Layout] = [
            0x2730: Layout(model: "H5182", length: 17, probeOffsets: [8, 13]),
            0x1B36: Layout(model: "H5184", length: 17, probeOffsets: [8, 13], pairedBySensorID: true),
            0xAC63: Layout(model: "H5191", length: 20, probeOffsets: [8], ownTemperatureOffset: 14),
            0x3022: Layout(model: "H5198", length: 20, probeOffsets: [8, 14], pairedBySensorID: true),
        ]
        for company: UInt16 in [0xF861, 0x388A, 0xEA42, 0xAAA2, 0xD14B] { table[company] = h5181 }
        for company: UInt16 in [0x67DD, 0xE02F, 0xF79F] { table[company] = h5183 }
        for company: UInt16 in [0x4A32, 0x0332, 0x4C32] { table[company] = h5185 }
        return table
    }()

    /// The company ids, in order (for the fields).
    public static let companyIDs: [UInt16] = layouts.keys.sorted()

    /// The family: no counter.
    public static let family = SensorFamily(
        id: "govee-meat", name: "Govee meat thermometer", manufacturer: "Govee",
        models: ["H5181", "H5182", "H5183", "H5184", "H5185", "H5191", "H5198"], quantities: [.temperature])

    /// Manufacturer data under each model's company ids.
    public let fields: [AdvertisementField] = Self.companyIDs.map(AdvertisementField.manufacturerData)

    /// The iBeacon Macs glue on: 25 bytes, `INTELLI_ROCKS` among them.
    static let beaconLength = 25
    static let beaconMark = Array("INTELLI_ROCKS".utf8)

    /// Creates the profile.
    public init() {}

    /// Decodes the payload of the model `field`'s company id names.
    public func decode(
        _ payload: [UInt8], in field: AdvertisementField, context: AdvertisementContext,
        from address: BluetoothAddress, keyring: inout AdvertisementKeyring
    ) -> Result<AdvertisementReading, ReadingError>? {
        guard case .manufacturerData(let company) = field, let layout = Self.layouts[company] else { return nil }
        var data = payload
        if data.count > Self.beaconLength, data.firstRange(of: Self.beaconMark) != nil {
            data.removeLast(Self.beaconLength)
        }
        guard data.count == layout.length else { return nil }
        return catchingReadingError { () throws(ReadingError) in
            let first = try Self.firstProbe(data, layout, raw: payload)
            var measurements: [Measurement] = []
            for (index, offset) in layout.probeOffsets.enumerated() {
                var builder = QuantitiesBuilder(profile: Self.family.id, raw: payload)
                builder.modelIndex = Self.family.modelIndex(named: context.name)
                // govee-ble shows a negative value (no probe plugged in) as 0 °C.
                try builder.add(.temperature, max(0, data.signedBigEndian(at: offset, count: 2)), per: 100)
                var measurement = builder.measurement()
                measurement.probe = first + UInt8(index)
                measurements.append(measurement)
            }
            if let offset = layout.ownTemperatureOffset {
                var builder = QuantitiesBuilder(profile: Self.family.id, raw: payload)
                builder.modelIndex = Self.family.modelIndex(named: context.name)
                try builder.add(.temperature, data.signedBigEndian(at: offset, count: 2), per: 100)
                measurements.append(builder.measurement())
            }
            var reading = AdvertisementReading(measurement: measurements[0], counter: nil, counterModulus: nil)
            reading.probes = Array(measurements.dropFirst())
            return reading
        }
    }

    /// The number of the advertisement's first probe: 1, or on a four-probe model 1 or 3 as
    /// byte 6 says.
    ///
    /// - Throws: ``ReadingError/Kind/outOfRange`` for a byte 6 that names no pair of probes.
    static func firstProbe(_ data: [UInt8], _ layout: Layout, raw: [UInt8]) throws(ReadingError) -> UInt8 {
        guard layout.pairedBySensorID else { return 1 }
        switch data[6] {
        case 1, 65, 129, 193: return 1
        case 2, 66, 130, 194: return 3
        default:
            throw ReadingError(
                .outOfRange, raw: raw, detail: "\(layout.model) sensor id \(data[6]) names no pair of its 4 probes")
        }
    }
}
