import SensorModel

/// The hot path of the event stream and of MQTT: readings written by hand.
///
/// A busy daemon pushes thousands of readings a second; Foundation's `JSONEncoder` cost
/// more than everything else it did per reading, and the protocol's own encoder still
/// goes through Codable's containers and a ``JSONValue`` tree (about 100,000 instructions
/// for an advertising sensor's reading with humidity and battery). The writer below produces
/// exactly the bytes ``JSONLines/encode(_:absent:)`` produces (keys sorted, compact, slashes
/// unescaped; tests compare the two), with the encoder's own string escaping and number
/// formatting.
extension Event {
    /// The event as one JSON line with its `\n`, as ``JSONLines/encode(_:absent:)`` writes it.
    public func jsonLine() throws -> [UInt8] {
        guard case .reading(let reading) = self else { return try JSONLines.encode(self) }
        if var line = reading.jsonObject(absent: .null, plan: Self.readingPlan, extra: Self.readingType) {
            line.append(UInt8(ascii: "\n"))
            return line
        }
        return try JSONLines.encode(self)
    }

    private static let readingType: [(key: String, value: JSONMember)] = [("type", .string("reading"))]
    /// Made once: the socket writes every reading with the same extra member.
    private static let readingPlan = JSONMemberPlan(keys: readingType.map(\.key))
}

/// A value written beside a reading's own members by ``Reading/jsonObject(absent:adding:)``.
public enum JSONMember: Sendable {
    /// A string.
    case string(String)
    /// An integer.
    case integer(Int)
}

extension Reading {
    /// The reading as one compact JSON object, with `extra` members beside its own, byte for
    /// byte as ``JSONLines/encode(_:absent:)`` writes the ``Codable`` object that encodes the
    /// reading and then `extra` (without the newline); nil when a quantity is no finite number
    /// (the encoder then says why it cannot write it).
    ///
    /// - Parameter absent: whether a missing name or temperature is `null` or left out (the
    ///   other quantities are always left out when missing, as the encoder leaves them).
    public func jsonObject(absent: AbsentOptionals, adding extra: [(key: String, value: JSONMember)] = []) -> [UInt8]? {
        let extra = JSONMemberPlan.inKeyOrder(extra) ? extra : JSONMemberPlan.lastOfEachKeySorted(extra)
        return jsonObject(absent: absent, plan: JSONMemberPlan(keys: extra.map(\.key)), extra: extra)
    }

    /// ``jsonObject(absent:adding:)`` with the members' order worked out beforehand: `extra`
    /// holds one member for each of the plan's keys, in the plan's order.
    public func jsonObject(
        absent: AbsentOptionals, plan: JSONMemberPlan, extra: [(key: String, value: JSONMember)]
    ) -> [UInt8]? {
        precondition(extra.count == plan.keys.count, "one extra member for each of the plan's keys")
        assert(extra.map(\.key) == plan.keys, "the extra members' keys are not the plan's")
        var object: [UInt8] = []
        object.reserveCapacity(320)  // an advertising sensor's MQTT payload is about 250 bytes
        object.append(UInt8(ascii: "{"))
        for slot in plan.slots {
            switch slot {
            case .extra(let index, let key):
                object.appendKey(plan.keyBytes[key])
                object.appendValue(extra[index].value)
            case .own(let member, let key):
                guard append(member, prefix: plan.keyBytes[key], absent: absent, to: &object) else { return nil }
            }
        }
        object.append(UInt8(ascii: "}"))
        return object
    }

    /// Appends member `own` (after a comma unless it is the first) unless it is left out;
    /// false when its value is no finite number.
    private func append(
        _ member: OwnMember, prefix: ArraySlice<UInt8>, absent: AbsentOptionals, to object: inout [UInt8]
    ) -> Bool {
        switch member {
        case .address:
            object.appendKey(prefix)
            object.appendJSONString(address)
        case .raw:
            object.appendKey(prefix)
            object.appendJSONString(measurement.raw)
        case .unit:
            object.appendKey(prefix)
            object.appendJSONString(measurement.unit.rawValue)
        case .profile:
            object.appendKey(prefix)
            object.appendJSONString(measurement.profile.rawValue)
        case .seq:
            object.appendKey(prefix)
            object.appendDecimal(seq)
        case .time:
            object.appendKey(prefix)
            object.append(UInt8(ascii: "\""))
            time.appendRFC3339(to: &object)
            object.append(UInt8(ascii: "\""))
        case .name: object.appendOptional(name, prefix: prefix, absent: absent)
        case .model: object.appendUnlessNil(model, prefix: prefix)
        case .manufacturer: object.appendUnlessNil(manufacturer, prefix: prefix)
        case .source: object.appendUnlessNil(source.recorded?.rawValue, prefix: prefix)
        case .probe:
            guard let probe = measurement.probe else { break }
            object.appendKey(prefix)
            object.appendDecimal(UInt64(probe))
        case .quantity(let quantity):
            if let value = measurement.quantities[quantity] {
                guard value.isFinite else { return false }
                object.appendKey(prefix)
                object.appendJSONNumber(value)
            } else if quantity == .temperature, absent == .null {
                object.appendKey(prefix)
                object.append(contentsOf: "null".utf8)
            }
        case .uncalibrated:
            guard let uncalibrated = measurement.uncalibrated else { break }
            object.appendKey(prefix)
            object.append(UInt8(ascii: "{"))
            for (quantity, key) in OwnMember.quantitiesInKeyOrder {
                guard let value = uncalibrated[quantity] else { continue }
                guard value.isFinite else { return false }
                if object.last != UInt8(ascii: "{") { object.append(UInt8(ascii: ",")) }
                object.appendJSONString(key)
                object.append(UInt8(ascii: ":"))
                object.appendJSONNumber(value)
            }
            object.append(UInt8(ascii: "}"))
        }
        return true
    }
}

/// The order of a reading's own members and the extra ones written beside them by
/// ``Reading/jsonObject(absent:plan:extra:)``: the keys' UTF-8 order, an extra member
/// replacing an own member of its key (as the encoder keeps the value written last).
///
/// Made once for a fixed set of extra keys (the socket's `type`, MQTT's `gateway` and
/// `rssi`): working the order out again for every reading cost about 4,000 instructions.
/// Every key is written out once here too, into one array the slots point into, so walking
/// the plan copies and retains nothing per member.
public struct JSONMemberPlan: Sendable {
    enum Slot: Sendable {
        /// A reading's own member; `key`: its key written out (`"key":`) in ``keyBytes``.
        case own(OwnMember, key: Range<Int>)
        /// The extra member at this index; `key` as for an own member.
        case extra(Int, key: Range<Int>)
    }

    let slots: [Slot]
    /// Every member's key written out, one after the other.
    let keyBytes: [UInt8]
    /// The extra members' keys, in the order their values are given.
    let keys: [String]

    /// The plan for extra members with `keys`, which must be in increasing UTF-8 order.
    public init(keys: [String]) {
        precondition(Self.increasing(keys), "keys out of order or repeated")
        self.keys = keys
        var slots: [Slot] = []
        var keyBytes: [UInt8] = []
        func writeOut(_ key: String) -> Range<Int> {
            let start = keyBytes.count
            keyBytes.appendJSONString(key)
            keyBytes.append(UInt8(ascii: ":"))
            return start..<keyBytes.count
        }
        var next = 0
        for own in OwnMember.inKeyOrder {
            while next < keys.count, keys[next].utf8.lexicographicallyPrecedes(own.key.utf8) {
                slots.append(.extra(next, key: writeOut(keys[next])))
                next += 1
            }
            if next < keys.count, keys[next] == own.key {  // written instead: it replaces the reading's own
                slots.append(.extra(next, key: writeOut(keys[next])))
                next += 1
            } else {
                slots.append(.own(own.member, key: writeOut(own.key)))
            }
        }
        for index in next..<keys.count { slots.append(.extra(index, key: writeOut(keys[index]))) }
        self.slots = slots
        self.keyBytes = keyBytes
    }

    /// Whether the keys of `members` are in strictly increasing UTF-8 order (as MQTT's
    /// `gateway` and `rssi` come): then they need no sorting, and no copy is made.
    static func inKeyOrder(_ members: [(key: String, value: JSONMember)]) -> Bool {
        increasing(members.map(\.key))
    }

    static func increasing(_ keys: [String]) -> Bool {
        zip(keys, keys.dropFirst()).allSatisfy { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// `members` with one entry per key, the value given last (as the encoder keeps it), in
    /// UTF-8 order of the keys.
    static func lastOfEachKeySorted(
        _ members: [(key: String, value: JSONMember)]
    ) -> [(key: String, value: JSONMember)] {
        var result: [(key: String, value: JSONMember)] = []
        for member in members {
            if let index = result.firstIndex(where: { $0.key == member.key }) {
                result[index].value = member.value
            } else {
                result.append(member)
            }
        }
        return result.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
    }
}

/// A reading's own members in its JSON object.
enum OwnMember {
    case address, name, raw, unit, profile, seq, time, uncalibrated, model, manufacturer, source, probe
    case quantity(Quantity)

    /// Every member with its key, in the order the encoder writes them (the keys' UTF-8 order).
    static let inKeyOrder: [(member: OwnMember, key: String)] = {
        let members: [OwnMember] =
            [
                .address, .name, .raw, .unit, .profile, .seq, .time, .uncalibrated, .model, .manufacturer, .source,
                .probe,
            ]
            + Quantity.allCases.map(quantity)
        return members.map { ($0, $0.key) }.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
    }()

    /// Every quantity with its key, in the keys' UTF-8 order (the members of `uncalibrated`).
    static let quantitiesInKeyOrder: [(quantity: Quantity, key: String)] =
        Quantity.allCases.map { ($0, $0.key) }.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }

    var key: String {
        switch self {
        case .address: "address"
        case .name: "name"
        case .raw: "raw"
        case .unit: "unit"
        case .profile: "profile"
        case .seq: "seq"
        case .time: "time"
        case .uncalibrated: "uncalibrated"
        case .model: "model"
        case .manufacturer: "manufacturer"
        case .source: "source"
        case .probe: "probe"
        case .quantity(let quantity): quantity.key
        }
    }
}

extension [UInt8] {
    /// Appends a comma unless this begins the object's first member, then `prefix` (the key
    /// written out). (Every value ends in something other than `{`.)
    fileprivate mutating func appendKey(_ prefix: ArraySlice<UInt8>) {
        if last != UInt8(ascii: "{") { append(UInt8(ascii: ",")) }
        append(contentsOf: prefix)
    }

    /// Appends an optional string member: its value, `null` when nil and `absent` is
    /// ``AbsentOptionals/null``, nothing otherwise (as the encoder writes `encodeIfPresent`).
    fileprivate mutating func appendOptional(_ text: String?, prefix: ArraySlice<UInt8>, absent: AbsentOptionals) {
        if let text {
            appendKey(prefix)
            appendJSONString(text)
        } else if absent == .null {
            appendKey(prefix)
            append(contentsOf: "null".utf8)
        }
    }

    /// Appends a string member that is left out when nil, whatever `absent` says (as the
    /// encoder's `encodeUnlessNil` writes it).
    fileprivate mutating func appendUnlessNil(_ text: String?, prefix: ArraySlice<UInt8>) {
        guard let text else { return }
        appendKey(prefix)
        appendJSONString(text)
    }

    /// Appends the value of one of the members given beside a reading's own.
    fileprivate mutating func appendValue(_ value: JSONMember) {
        switch value {
        case .string(let text): appendJSONString(text)
        case .integer(let number): appendDecimal(number)
        }
    }
}

extension [UInt8] {
    /// Appends a finite `value` as ``JSONValue/numberText(_:)`` writes it.
    ///
    /// Sensors' values have at most two decimals: such a value is written from its number
    /// of hundredths, without `description` and its `String` (about 1,400 instructions a value
    /// that way, callgrind 2026-12-05). `n / 100` with trailing zeros dropped is then the
    /// shortest text that reads back as the value, which is what `description` writes: below
    /// 10^7 a `Double`'s spacing is under 10^-8, so no text with fewer digits rounds to it.
    mutating func appendJSONNumber(_ value: Double) {
        let hundredths = (value * 100).rounded()
        guard abs(hundredths) < 1e9, hundredths / 100 == value, value != 0 || value.sign == .plus else {
            append(contentsOf: JSONValue.numberText(value)!.utf8)
            return
        }
        let whole = Int64(hundredths)
        if whole < 0 { append(UInt8(ascii: "-")) }
        appendDecimal(whole.magnitude / 100)
        let fraction = whole.magnitude % 100
        guard fraction != 0 else { return }
        append(UInt8(ascii: "."))
        append(UInt8(ascii: "0") + UInt8(fraction / 10))
        if fraction % 10 != 0 { append(UInt8(ascii: "0") + UInt8(fraction % 10)) }
    }

    /// Appends `value` in decimal, zero-padded to at least `width` digits.
    ///
    /// The digits are made last to first in a buffer on the stack, by constant divisions
    /// (which compile to multiplications), and appended at once.
    mutating func appendDecimal(_ value: some BinaryInteger, width: Int = 1) {
        if value < 0 { append(UInt8(ascii: "-")) }
        var magnitude = UInt64(value.magnitude)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            let count = digits.count - start
            if width > count { append(contentsOf: repeatElement(UInt8(ascii: "0"), count: width - count)) }
            append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }
}
