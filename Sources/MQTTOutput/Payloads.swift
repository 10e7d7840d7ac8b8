import BlectlProtocol

/// A reading as published on `…/state`: the protocol's reading object plus `gateway`
/// and, when the hub knows it, the device's last `rssi`.
struct StatePayload: Encodable {
    let reading: Reading
    let gateway: String
    let rssi: Int?

    private enum CodingKeys: String, CodingKey { case gateway, rssi }

    func encode(to encoder: any Encoder) throws {
        try reading.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(gateway, forKey: .gateway)
        try container.encodeIfPresent(rssi, forKey: .rssi)
    }
}

/// A reading error as published on `…/error`: the protocol's object plus `gateway`.
struct ErrorPayload: Encodable {
    let failure: ReadingFailure
    let gateway: String

    private enum CodingKeys: String, CodingKey { case gateway }

    func encode(to encoder: any Encoder) throws {
        try failure.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(gateway, forKey: .gateway)
    }
}

/// Payloads as bytes: the protocol's JSON encoder, compact, absent fields left out.
enum Payload {
    /// A reading as published on `…/state`: ``StatePayload``'s bytes, written by hand (every
    /// reading comes through here; the encoder's Codable path cost about 100,000 instructions
    /// for a reading with humidity and battery).
    static func state(_ reading: Reading, gateway: String, rssi: Int?) -> [UInt8] {
        let object =
            if let rssi {
                reading.jsonObject(
                    absent: .omitted, plan: withRSSI, extra: [("gateway", .string(gateway)), ("rssi", .integer(rssi))])
            } else {
                reading.jsonObject(absent: .omitted, plan: withoutRSSI, extra: [("gateway", .string(gateway))])
            }
        return object ?? bytes(StatePayload(reading: reading, gateway: gateway, rssi: rssi))
    }

    private static let withRSSI = JSONMemberPlan(keys: ["gateway", "rssi"])
    private static let withoutRSSI = JSONMemberPlan(keys: ["gateway"])

    static func bytes(_ value: some Encodable) -> [UInt8] {
        // Every payload is made of strings and numbers the encoder always accepts.
        guard var line = try? JSONLines.encode(value, absent: .omitted) else { return Array("{}".utf8) }
        line.removeLast()  // the newline that ends a JSON line
        return line
    }
}
