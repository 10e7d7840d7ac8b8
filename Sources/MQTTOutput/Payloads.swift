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

/// An advertising sensor's reception as published on `…/reception` (docs/mqtt.md): the
/// counts of `status`, the last hour's share received as a percentage, and `gateway`.
struct ReceptionPayload: Encodable {
    let sensor: AdvertisementStatus.Sensor
    let gateway: String

    private enum CodingKeys: String, CodingKey {
        case address, gateway, received, missed
        case countedBy = "counted_by"
        case receivedLastHour = "received_last_hour"
        case missedLastHour = "missed_last_hour"
        case ratioLastHour = "ratio_last_hour"
        case percentLastHour = "percent_last_hour"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(sensor.address, forKey: .address)
        try container.encode(gateway, forKey: .gateway)
        try container.encodeIfPresent(sensor.countedBy, forKey: .countedBy)
        try container.encodeIfPresent(sensor.received, forKey: .received)
        try container.encodeIfPresent(sensor.missed, forKey: .missed)
        try container.encodeIfPresent(sensor.receivedLastHour, forKey: .receivedLastHour)
        try container.encodeIfPresent(sensor.missedLastHour, forKey: .missedLastHour)
        try container.encodeIfPresent(sensor.ratioLastHour, forKey: .ratioLastHour)
        try container.encodeIfPresent(
            sensor.ratioLastHour.map { ($0 * 1000).rounded() / 10 }, forKey: .percentLastHour)
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
