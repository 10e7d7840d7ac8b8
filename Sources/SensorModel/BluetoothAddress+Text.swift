/// The address as text at the edges: JSON on the wire, literals in code and tests.
extension BluetoothAddress: Codable {
    /// Decodes `XX:XX:XX:XX:XX:XX` (either case); anything else is a data error that names it.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let address = BluetoothAddress(text) else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "not a Bluetooth address (XX:XX:XX:XX:XX:XX): \(text)")
        }
        self = address
    }

    /// Encodes the address as BlueZ writes it, `DC:A6:32:01:02:03`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension BluetoothAddress: ExpressibleByStringLiteral {
    /// An address written in the code, such as `"DC:A6:32:01:02:03"`.
    ///
    /// A literal that is not an address is a programming error, caught where it is written.
    public init(stringLiteral text: StaticString) {
        guard let address = text.withUTF8Buffer({ BluetoothAddress(utf8: $0, separator: UInt8(ascii: ":")) }) else {
            preconditionFailure("not a Bluetooth address: \(text)")
        }
        self = address
    }
}
