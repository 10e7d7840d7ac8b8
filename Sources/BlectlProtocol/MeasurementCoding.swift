public import SensorModel

extension Measurement {
    /// The keys a measurement writes beside the fields of the object that carries it.
    private struct FieldKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }

        static let raw = FieldKey(stringValue: "raw")
        static let unit = FieldKey(stringValue: "unit")
        static let profile = FieldKey(stringValue: "profile")
        static func quantity(_ quantity: Quantity) -> FieldKey { FieldKey(stringValue: quantity.key) }
    }

    /// Writes `celsius` (`null` when not measured), `raw`, `unit`, `profile`, and each other
    /// quantity the profile carries (`humidity`, `battery`, …; left out when absent).
    public func encodeFields(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FieldKey.self)
        try container.encodeIfPresent(celsius, forKey: .quantity(.temperature))
        for quantity in Quantity.allCases where quantity != .temperature {
            try container.encodeUnlessNil(quantities[quantity], forKey: .quantity(quantity))
        }
        try container.encode(raw, forKey: .raw)
        try container.encode(unit, forKey: .unit)
        try container.encode(profile, forKey: .profile)
    }

    /// Reads the fields ``encodeFields(to:)`` writes; `profile` may be missing (older peers).
    public init(fieldsFrom decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: FieldKey.self)
        var quantities = Quantities()
        for quantity in Quantity.allCases {
            quantities[quantity] = try container.decodeIfPresent(Double.self, forKey: .quantity(quantity))
        }
        self.init(
            profile: try container.decodeIfPresent(ProfileID.self, forKey: .profile) ?? .unknown,
            quantities: quantities, unit: try container.decode(TemperatureUnit.self, forKey: .unit),
            raw: try container.decode(String.self, forKey: .raw))
    }
}
