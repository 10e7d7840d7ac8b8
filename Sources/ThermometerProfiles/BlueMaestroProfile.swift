public import SensorModel

#if canImport(Glibc)
    import Glibc
#endif

/// BlueMaestro Tempo Disc loggers: manufacturer data 0x0133, the device type in byte 0, as
/// Home Assistant's bluemaestro-ble reads them.
///
/// Tempo Disc T, THD, THPD and the Temperature Sensor v8 (big-endian): byte 1 the battery (%),
/// bytes 2-5 the logging interval and log count (not read), 6-7 the temperature (sint16 ×
/// 0.1 °C), then on a THD the humidity (uint16 × 0.1 %) and the dew point the disc works out
/// (sint16 × 0.1 °C), on a THPD the humidity and the pressure (uint16 × 0.1 hPa). Tempo Disc
/// Maxi T, THD, THPD (little-endian): byte 1 the battery, bytes 15-16 the temperature (sint16
/// × 0.01 °C), 17-18 the humidity (sint16 × 0.01 %), 19-22 the pressure (sint32 × 0.01 hPa);
/// the Maxi sends no dew point, so a Maxi THD's and THPD's is worked out from the temperature
/// and humidity with the Magnus formula as bluemaestro-ble works it out. What follows the
/// fields (the disc's statistics) is not read; a payload shorter than its type's fields, or
/// of a type bluemaestro-ble does not list, is nobody's. No counter.
public struct BlueMaestroProfile: AdvertisementProfile {
    /// BlueMaestro's company id, 0x0133.
    public static let companyID: UInt16 = 0x0133

    /// What a device type sends.
    struct Layout: Sendable {
        /// The model's name.
        let model: String
        /// Maxi: little-endian, hundredths, values from byte 15.
        let isMaxi: Bool
        /// The quantities after the temperature, in the order sent.
        let after: [Quantity]
        /// The length of the fields read, device type included.
        var fieldsLength: Int {
            // A Maxi's pressure takes four bytes, every other value two.
            isMaxi ? 17 + 2 * after.count + (after.contains(.pressure) ? 2 : 0) : 8 + 2 * after.count
        }
    }

    /// The device types bluemaestro-ble knows, by the byte that names them.
    static let layouts: [UInt8: Layout] = [
        0x08: Layout(model: "Temperature Sensor v8", isMaxi: false, after: []),
        0x0D: Layout(model: "Tempo Disc T", isMaxi: false, after: []),
        0x16: Layout(model: "Tempo Disc THD", isMaxi: false, after: [.humidity, .dewPoint]),
        0x17: Layout(model: "Tempo Disc THD", isMaxi: false, after: [.humidity, .dewPoint]),
        0x1B: Layout(model: "Tempo Disc THPD", isMaxi: false, after: [.humidity, .pressure]),
        0x29: Layout(model: "Tempo Disc Maxi T", isMaxi: true, after: []),
        0x2A: Layout(model: "Tempo Disc Maxi THD", isMaxi: true, after: [.humidity]),
        0x2B: Layout(model: "Tempo Disc Maxi THPD", isMaxi: true, after: [.humidity, .pressure]),
    ]

    /// The family: no counter.
    public static let family = SensorFamily(
        id: "bluemaestro", name: "BlueMaestro Tempo Disc", manufacturer: "BlueMaestro",
        models: [
            "Tempo Disc T", "Tempo Disc THD", "Tempo Disc THPD", "Tempo Disc Maxi T", "Tempo Disc Maxi THD",
            "Tempo Disc Maxi THPD", "Temperature Sensor v8",
        ],
        quantities: [.temperature, .humidity, .battery, .pressure, .dewPoint])

    /// Manufacturer data 0x0133.
    public let fields: [AdvertisementField] = [.manufacturerData(Self.companyID)]

    /// Creates the profile.
    public init() {}

    /// Decodes a Tempo Disc's payload.
    public func decode(
        _ payload: [UInt8], from address: BluetoothAddress, keyring: inout AdvertisementKeyring
    ) -> Result<AdvertisementReading, ReadingError>? {
        guard let type = payload.first, let layout = Self.layouts[type], payload.count >= layout.fieldsLength else {
            return nil
        }
        return catchingReadingError { () throws(ReadingError) in
            var builder = QuantitiesBuilder(profile: Self.family.id, raw: payload)
            builder.modelIndex = Self.family.modelIndex(of: layout.model)
            try builder.add(.battery, Int(payload[1]))
            if layout.isMaxi {
                try readMaxi(payload, layout, into: &builder)
            } else {
                try builder.add(.temperature, payload.signedBigEndian(at: 6, count: 2), per: 10)
                for (index, quantity) in layout.after.enumerated() {
                    let offset = 8 + 2 * index
                    let count =
                        quantity == .dewPoint
                        ? payload.signedBigEndian(at: offset, count: 2)
                        : payload.unsignedBigEndian(at: offset, count: 2)
                    try builder.add(quantity, count, per: 10)
                }
            }
            return try builder.reading(counter: nil, counterModulus: nil)
        }
    }

    /// A Maxi's little-endian hundredths, and the dew point worked out from them.
    private func readMaxi(_ payload: [UInt8], _ layout: Layout, into builder: inout QuantitiesBuilder)
        throws(ReadingError)
    {
        let temperature = payload.signedLittleEndian(at: 15, count: 2)
        try builder.add(.temperature, temperature, per: 100)
        guard layout.after.contains(.humidity) else { return }
        let humidity = payload.signedLittleEndian(at: 17, count: 2)
        try builder.add(.humidity, humidity, per: 100)
        if layout.after.contains(.pressure) {
            try builder.add(.pressure, payload.signedLittleEndian(at: 19, count: 4), per: 100)
        }
        if let hundredths = Self.dewPointHundredths(
            celsius: Double(temperature) / 100, humidity: Double(humidity) / 100)
        {
            try builder.add(.dewPoint, hundredths, per: 100)
        }
    }

    /// The Magnus formula's dew point in hundredths of a degree, rounded half up, exactly as
    /// bluemaestro-ble works it out (the same `log` and the same operations in the same order,
    /// so the same double); nil outside 0 < humidity ≤ 100.
    public static func dewPointHundredths(celsius: Double, humidity: Double) -> Int? {
        guard humidity > 0, humidity <= 100, celsius != -243.5 else { return nil }
        let alpha = log(humidity / 100) + 17.67 * celsius / (celsius + 243.5)
        let value = (243.5 * alpha / (17.67 - alpha) * 100 + 0.5).rounded(.down)
        guard value.isFinite, abs(value) < 1e9 else { return nil }
        return Int(value)
    }
}
