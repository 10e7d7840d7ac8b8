extension BluetoothUUID: CustomStringConvertible, LosslessStringConvertible {
    /// The canonical 128-bit lowercase form; ``init(_:)`` parses it back.
    public var description: String { uuidString }
}

extension BluetoothUUID: Codable {
    /// Decodes a UUID from a single string in any form ``init(_:)`` accepts.
    ///
    /// - Throws: `DecodingError.dataCorrupted` when the string is not a Bluetooth UUID.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let uuid = BluetoothUUID(text) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "not a Bluetooth UUID: \(text.debugDescription)"
            )
        }
        self = uuid
    }

    /// Encodes the UUID as a single string in the canonical 128-bit form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(uuidString)
    }
}
