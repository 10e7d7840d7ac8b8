import SensorModel

/// Collects the quantities of one decoded value, each checked against its plausible range
/// and rounded to its step, and makes the ``Measurement``.
struct QuantitiesBuilder {
    /// The profile that decodes.
    let profile: ProfileID
    /// The payload as received, for the measurement and any error.
    let raw: [UInt8]
    /// The quantities added so far.
    private(set) var quantities = Quantities()
    /// Why each secondary quantity out of its range was left out.
    private(set) var dropped: [ReadingError] = []
    /// The model, where the format tells it apart (``SensorFamily/modelIndex(of:)``).
    var modelIndex: UInt8?

    /// Whether nothing was measured: no quantity added, none dropped.
    var isEmpty: Bool { quantities.isEmpty && dropped.isEmpty }

    /// Adds `quantity` with the value `count × numerator ÷ denominator`, an exact fraction
    /// (formats scale integers by 0.01, 0.005, 0.35, …).
    ///
    /// A quantity that already has a value keeps it: the first of several wins, unchecked.
    ///
    /// A secondary quantity (humidity, a sensor artefact above 100 %, say) out of its range
    /// is left out with its error in ``dropped``: the rest of the reading stands, and the
    /// error is reported beside it.
    ///
    /// - Throws: ``ReadingError/Kind/outOfRange`` when the temperature is not plausible.
    mutating func add(
        _ quantity: Quantity, _ count: Int, times numerator: Int = 1, per denominator: Int = 1
    ) throws(ReadingError) {
        guard quantities[quantity] == nil else { return }
        let exact = count * numerator
        let range = ReadingLimits.plausibleRange(of: quantity)
        let value = Double(exact) / Double(denominator)
        guard range.contains(value) else {
            let error = ReadingError(
                .outOfRange, raw: raw,
                detail: "\(quantity) \(value) \(quantity.symbol) is outside \(range) \(quantity.symbol)")
            guard quantity != .temperature else { throw error }
            dropped.append(error)
            return
        }
        let steps = ReadingLimits.stepsPerUnit(of: quantity)
        // Rounding the exact fraction in integers, then dividing by an exact power of ten,
        // gives the Double nearest to the decimal meant. Adding zero turns −0.0 into 0.0.
        quantities[quantity] = Double(dividedRounded(exact * steps, by: denominator)) / Double(steps) + 0
    }

    /// Adds `quantity` as ``add(_:_:times:per:)`` does, replacing any value it has: for
    /// formats where a later object of a quantity wins, as Home Assistant reads them.
    mutating func replace(
        _ quantity: Quantity, _ count: Int, times numerator: Int = 1, per denominator: Int = 1
    ) throws(ReadingError) {
        quantities[quantity] = nil
        try add(quantity, count, times: numerator, per: denominator)
    }

    /// The measurement, in °C, with the payload as lower-case hex.
    func measurement() -> Measurement {
        var measurement = Measurement(profile: profile, quantities: quantities, unit: .celsius, raw: raw.hexString)
        measurement.modelIndex = modelIndex
        return measurement
    }

    /// The reading of what was collected, with the quantities dropped.
    ///
    /// - Throws: the first dropped quantity's error when nothing else was measured.
    func reading(
        counter: UInt32?, counterModulus: UInt64?, isAuthenticated: Bool = false
    ) throws(ReadingError) -> AdvertisementReading {
        if quantities.isEmpty, let first = dropped.first { throw first }
        return AdvertisementReading(
            measurement: measurement(), counter: counter, counterModulus: counterModulus,
            isAuthenticated: isAuthenticated, dropped: dropped)
    }
}

/// `numerator ÷ denominator` rounded half away from zero; `denominator` is positive.
func dividedRounded(_ numerator: Int, by denominator: Int) -> Int {
    let quotient = numerator / denominator
    let remainder = numerator % denominator
    guard 2 * abs(remainder) >= denominator else { return quotient }
    return quotient + (numerator < 0 ? -1 : 1)
}

/// Decodes a format of one fixed length: `nil` for any other length, else what `read` adds
/// to the builder, with the counter it returns (of the family's width).
func decodeFixedLength(
    _ payload: [UInt8], length: Int, family: SensorFamily,
    _ read: (inout QuantitiesBuilder) throws(ReadingError) -> UInt32?
) -> Result<AdvertisementReading, ReadingError>? {
    guard payload.count == length else { return nil }
    return catchingReadingError { () throws(ReadingError) in
        var builder = QuantitiesBuilder(profile: family.id, raw: payload)
        let counter = try read(&builder)
        return try builder.reading(counter: counter, counterModulus: family.counterModulus)
    }
}

/// Runs a decoder written with typed throws and returns what the protocol returns.
func catchingReadingError(
    _ body: () throws(ReadingError) -> AdvertisementReading?
) -> Result<AdvertisementReading, ReadingError>? {
    do {
        return try body().map { .success($0) }
    } catch {
        return .failure(error)
    }
}
