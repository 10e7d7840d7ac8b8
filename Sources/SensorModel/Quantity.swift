/// Something a sensor measures.
///
/// Adding a quantity is one case here plus its entry in ``key``, ``name`` and ``symbol``: the
/// outputs switch over every case, so the compiler lists what else must know about it.
public enum Quantity: Int, CaseIterable, Sendable, Hashable {
    /// Temperature in degrees Celsius.
    case temperature
    /// Relative humidity in percent.
    case humidity
    /// Battery charge in percent.
    case battery
    /// Air pressure in hectopascals.
    case pressure
    /// Battery voltage in volts.
    case voltage
    /// Carbon dioxide in parts per million.
    case co2
    /// Dew point in degrees Celsius, as the sensor worked it out.
    case dewPoint

    /// The quantity's name in JSON, configuration and the history store.
    public var key: String {
        switch self {
        case .temperature: "celsius"
        case .humidity: "humidity"
        case .battery: "battery"
        case .pressure: "pressure"
        case .voltage: "voltage"
        case .co2: "co2"
        case .dewPoint: "dew_point"
        }
    }

    /// The quantity's name, for people: `temperature`, `CO₂`, `dew point`.
    public var name: String {
        switch self {
        case .temperature: "temperature"
        case .humidity: "humidity"
        case .battery: "battery"
        case .pressure: "pressure"
        case .voltage: "voltage"
        case .co2: "CO₂"
        case .dewPoint: "dew point"
        }
    }

    /// The unit's symbol, for people.
    public var symbol: String {
        switch self {
        case .temperature, .dewPoint: "°C"
        case .humidity, .battery: "%"
        case .pressure: "hPa"
        case .voltage: "V"
        case .co2: "ppm"
        }
    }

    /// The quantity whose ``key`` is `key`.
    public init?(key: some StringProtocol) {
        guard let found = Self.allCases.first(where: { $0.key == key }) else { return nil }
        self = found
    }
}

/// A value for some of the ``Quantity`` cases, stored inline (no heap).
public struct Quantities: Sendable, Equatable {
    /// Room for eight quantities; NaN marks an absent one.
    private var slots = InlineArray<8, Double>(repeating: .nan)

    /// No values.
    public init() {}

    /// The given values.
    public init(_ values: KeyValuePairs<Quantity, Double>) {
        for (quantity, value) in values { self[quantity] = value }
    }

    /// The value of `quantity`, nil when absent; setting NaN or nil removes it.
    public subscript(quantity: Quantity) -> Double? {
        get {
            let value = slots[quantity.rawValue]
            return value.isNaN ? nil : value
        }
        set { slots[quantity.rawValue] = newValue ?? .nan }
    }

    /// Whether no quantity has a value.
    public var isEmpty: Bool { Quantity.allCases.allSatisfy { self[$0] == nil } }

    /// The quantities with a value, in declaration order.
    public var present: [(quantity: Quantity, value: Double)] {
        Quantity.allCases.compactMap { quantity in self[quantity].map { (quantity, $0) } }
    }

    /// Equal when the same quantities hold the same values.
    public static func == (lhs: Quantities, rhs: Quantities) -> Bool {
        Quantity.allCases.allSatisfy { lhs[$0] == rhs[$0] }
    }
}
