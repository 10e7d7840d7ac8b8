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
        static let uncalibrated = FieldKey(stringValue: "uncalibrated")
        static let probe = FieldKey(stringValue: "probe")
        static func quantity(_ quantity: Quantity) -> FieldKey { FieldKey(stringValue: quantity.key) }
    }

    /// Writes `celsius` (`null` when not measured), `raw`, `unit`, `profile`, and each other
    /// quantity the profile carries (`humidity`, `battery`, …; left out when absent),
    /// `uncalibrated` (the offset quantities' values before calibration) when an offset applied,
    /// and `probe` on a device with several probes.
    public func encodeFields(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: FieldKey.self)
        try container.encodeIfPresent(celsius, forKey: .quantity(.temperature))
        for quantity in Quantity.allCases where quantity != .temperature {
            try container.encodeUnlessNil(quantities[quantity], forKey: .quantity(quantity))
        }
        try container.encode(raw, forKey: .raw)
        try container.encode(unit, forKey: .unit)
        try container.encode(profile, forKey: .profile)
        // Left out, never null, for a device's only sensor (encodeIfPresent writes null when
        // the encoder is asked to spell absent optionals).
        if let probe { try container.encode(probe, forKey: .probe) }
        if let uncalibrated {
            var nested = container.nestedContainer(keyedBy: FieldKey.self, forKey: .uncalibrated)
            for (quantity, value) in uncalibrated.present {
                try nested.encode(value, forKey: .quantity(quantity))
            }
        }
    }

    /// Reads the fields ``encodeFields(to:)`` writes; `profile`, `uncalibrated` and `probe` may
    /// be missing (older peers; no offset applied; a device's only sensor).
    public init(fieldsFrom decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: FieldKey.self)
        self.init(
            profile: try container.decodeIfPresent(ProfileID.self, forKey: .profile) ?? .unknown,
            quantities: try Self.quantities(in: container),
            unit: try container.decode(TemperatureUnit.self, forKey: .unit),
            raw: try container.decode(String.self, forKey: .raw),
            probe: try container.decodeIfPresent(UInt8.self, forKey: .probe))
        if container.contains(.uncalibrated), try !container.decodeNil(forKey: .uncalibrated) {
            uncalibrated = try Self.quantities(
                in: container.nestedContainer(keyedBy: FieldKey.self, forKey: .uncalibrated))
        }
    }

    /// Each quantity's value in `container`, by its key; absent keys leave it absent.
    private static func quantities(in container: KeyedDecodingContainer<FieldKey>) throws -> Quantities {
        var quantities = Quantities()
        for quantity in Quantity.allCases {
            quantities[quantity] = try container.decodeIfPresent(Double.self, forKey: .quantity(quantity))
        }
        return quantities
    }
}
