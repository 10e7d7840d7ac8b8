@testable import BlectlProtocol
import FoundationEssentials
import Testing

/// A type that uses every kind of container, for the coding paths the protocol's own
/// types do not take.
private struct Containers: Codable, Equatable {
    var flag: Bool
    var small: UInt8
    var big: Int64
    var ratio: Float
    var label: String?
    var pairs: [[Int]]
    var inner: [String: Double]
    var base: Int

    private enum Key: String, CodingKey { case flag, small, big, ratio, label, pairs, inner, nested, list }

    init(
        flag: Bool, small: UInt8, big: Int64, ratio: Float, label: String?, pairs: [[Int]], inner: [String: Double],
        base: Int
    ) {
        (self.flag, self.small, self.big, self.ratio, self.label) = (flag, small, big, ratio, label)
        (self.pairs, self.inner, self.base) = (pairs, inner, base)
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        flag = try container.decode(Bool.self, forKey: .flag)
        small = try container.decode(UInt8.self, forKey: .small)
        big = try container.decode(Int64.self, forKey: .big)
        ratio = try container.decode(Float.self, forKey: .ratio)
        label = try container.decodeIfPresent(String.self, forKey: .label)
        inner = try container.decode([String: Double].self, forKey: .inner)
        var list = try container.nestedUnkeyedContainer(forKey: .list)
        pairs = []
        while !list.isAtEnd {
            var pair = try list.nestedUnkeyedContainer()
            pairs.append([try pair.decode(Int.self), try pair.decode(Int.self)])
        }
        let nested = try container.nestedContainer(keyedBy: Key.self, forKey: .nested)
        base = try Int(from: nested.superDecoder())
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(flag, forKey: .flag)
        try container.encode(small, forKey: .small)
        try container.encode(big, forKey: .big)
        try container.encode(ratio, forKey: .ratio)
        try container.encodeIfPresent(label, forKey: .label)
        try container.encode(inner, forKey: .inner)
        var list = container.nestedUnkeyedContainer(forKey: .list)
        for pair in pairs {
            var element = list.nestedUnkeyedContainer()
            for number in pair { try element.encode(number) }
        }
        var nested = container.nestedContainer(keyedBy: Key.self, forKey: .nested)
        try base.encode(to: nested.superEncoder())
    }
}

/// Optional fields, as the synthesized conformance encodes them.
private struct Optionals: Codable, Equatable {
    var a: Int
    var b: String?
    var c: [UInt8]?
}

@Suite("JSON coding")
struct JSONCodingTests {
    private func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try JSONLines.decode(type, from: Array(text.utf8))
    }

    private func roundTrip<T: Codable & Equatable>(_ value: T) throws {
        #expect(try JSONLines.decode(T.self, from: JSONLines.encode(value)) == value, "\(value)")
    }

    @Test("Protocol values decode back to themselves")
    func protocolRoundTrips() throws {
        try roundTrip(ProtocolSamples.status)
        try roundTrip(ProtocolSamples.info)
        try roundTrip(ProtocolSamples.report)
        try roundTrip(ErrorInfo(.badRequest, ProtocolSamples.awkward))
        try roundTrip(Hello())
        try roundTrip(Empty())
        try roundTrip(SubscribeResult(events: EventType.allCases, lastSeq: .max))
        try roundTrip(
            HistoryResult(events: [.reading(ProtocolSamples.reading)], lastSeq: 1, complete: true, more: false))
        try roundTrip(Reply.success(id: 3, [ProtocolSamples.info]))
        try roundTrip(Reply<Empty>.failure(id: nil, ErrorInfo(.timeout, "slow")))
        for celsius in ProtocolSamples.numbers {
            let reading = Reading(
                seq: 1, time: ProtocolSamples.time, address: "00:00:00:00:00:0A", name: ProtocolSamples.awkward,
                celsius: celsius,
                raw: "", unit: .celsius)
            try roundTrip(Event.reading(reading))
        }
    }

    @Test("Every container kind, nesting and super coders round-trip")
    func containers() throws {
        let value = Containers(
            flag: true, small: 255, big: .min, ratio: 40.1, label: nil, pairs: [[1, 2], [-3, 4]],
            inner: ["x": 0.5, "y": -1e300], base: 7)
        try roundTrip(value)
        #expect(
            try JSONLines.encodeString(value)
                == #"{"big":-9223372036854775808,"flag":true,"inner":{"x":0.5,"y":-1e+300},"label":null,"list":[[1,2],[-3,4]],"#
                + #""nested":{"super":7},"ratio":40.1,"small":255}"#)
    }

    @Test("Our output matches Foundation's encoder, compact and pretty, for every sample")
    func matchesFoundation() throws {
        for (name, value) in ProtocolSamples.all {
            for pretty in [false, true] {
                let encoder = JSONEncoder()
                encoder.outputFormatting =
                    pretty
                    ? [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted] : [.sortedKeys, .withoutEscapingSlashes]
                let foundation = String(decoding: try encoder.encode(value), as: UTF8.self)
                #expect(try JSONLines.encodeString(value, pretty: pretty, absent: .omitted) == foundation, "\(name)")
            }
        }
    }

    @Test("Absent and null optionals decode as nil; nil optionals are null, or left out on request")
    func optionals() throws {
        #expect(try decode(Optionals.self, #"{"a":1}"#) == Optionals(a: 1))
        #expect(try decode(Optionals.self, #"{"a":1,"b":null,"c":null}"#) == Optionals(a: 1))
        #expect(try decode(Optionals.self, #"{"c":[1,255],"a":1,"b":"x"}"#) == Optionals(a: 1, b: "x", c: [1, 255]))
        #expect(try JSONLines.encodeString(Optionals(a: 1)) == #"{"a":1,"b":null,"c":null}"#)
        #expect(try JSONLines.encodeString(Optionals(a: 1), absent: .omitted) == #"{"a":1}"#)
        #expect(try JSONLines.encodeString(Optionals(a: 1, b: "x", c: [])) == #"{"a":1,"b":"x","c":[]}"#)
    }

    @Test("Missing keys, nulls and wrong types are the usual DecodingErrors")
    func decodingErrors() throws {
        #expect {
            try decode(Optionals.self, #"{"b":"x"}"#)
        } throws: { error in
            guard case .keyNotFound(let key, _) = error as? DecodingError else { return false }
            return key.stringValue == "a"
        }
        #expect {
            try decode(Optionals.self, #"{"a":null}"#)
        } throws: { error in
            guard case .valueNotFound = error as? DecodingError else { return false }
            return true
        }
        #expect {
            try decode(Optionals.self, #"{"a":1,"c":[1,"2"]}"#)
        } throws: { error in
            guard case .typeMismatch(_, let context) = error as? DecodingError else { return false }
            return context.codingPath.map(\.stringValue) == ["c", "Index 1"]
        }
        #expect(throws: DecodingError.self) { try decode(Optionals.self, "[]") }
        #expect(throws: DecodingError.self) { try decode([Int].self, "{}") }
        #expect(throws: DecodingError.self) { try decode(Bool.self, "1") }
        #expect(throws: DecodingError.self) { try decode(String.self, "true") }
    }

    @Test(
        "Integers must be integral and in range",
        arguments: [
            ("0", 0), ("-0", 0), ("255", 255), ("1.0", 1), ("1e2", 100), ("0.1e1", 1), ("2E0", 2),
            ("256", nil), ("-1", nil), ("1.5", nil), ("1e400", nil), ("\"1\"", nil),
        ] as [(String, Int?)])
    func integers(text: String, expected: Int?) throws {
        if let expected {
            #expect(try decode(UInt8.self, text) == UInt8(expected))
        } else {
            #expect(throws: DecodingError.self) { try decode(UInt8.self, text) }
        }
    }

    @Test("Wide integers and doubles convert exactly or fail")
    func wideNumbers() throws {
        #expect(try decode(Int64.self, "9223372036854775807") == .max)
        #expect(try decode(Int64.self, "-9223372036854775808") == .min)
        #expect(try decode(UInt64.self, "18446744073709551615") == .max)
        #expect(throws: DecodingError.self) { try decode(Int64.self, "9223372036854775808") }
        #expect(throws: DecodingError.self) { try decode(Int.self, "0.5") }
        #expect(try decode(Double.self, "-0").sign == .minus)
        #expect(try decode(Double.self, "40.1") == 40.1)
        #expect(try decode(Double.self, "-12.25e+1") == -122.5)
        #expect(try decode(Double.self, "1E-2") == 0.01)
        #expect(try decode(Double.self, "1e-400") == 0)
        #expect(throws: DecodingError.self) { try decode(Double.self, "1e400") }
        #expect(throws: DecodingError.self) { try decode(Float.self, "1e39") }
    }

    @Test("Whitespace, escapes and surrogate pairs are read as RFC 8259 says")
    func validText() throws {
        let spaced = " \t\r\n{ \"a\" :\n[ 1 , 2 ] , \"b\" : null , \"c\":true,\"d\" : false } \r\n"
        #expect(
            try JSONParser.parse(Array(spaced.utf8))
                == .object([
                    "a": .array([.number("1"), .number("2")]), "b": .null, "c": .bool(true), "d": .bool(false),
                ]))
        #expect(try decode(String.self, #""\"\\\/\b\f\n\r\t\u0041\u00e9\u20AC""#) == "\"\\/\u{8}\u{C}\n\r\tAé€")
        #expect(try decode(String.self, #""\ud83d\ude00 \uD83D\uDE00""#) == "😀 😀")
        #expect(try decode(String.self, "\"Küche 😀\"") == "Küche 😀")
        #expect(try decode([String: Int].self, #"{"a":1,"a":2}"#) == ["a": 1])
        #expect(try decode([Int].self, "[]") == [])
        #expect(try decode([String: Int].self, "{ }") == [:])
    }

    @Test(
        "Invalid JSON is rejected as data corruption",
        arguments: [
            "", " ", "[1,]", #"{"a":1,}"#, "01", "-01", "1.", ".5", "+1", "-", "1e", "1e+", "0x10", "NaN", "Infinity",
            "[1 2]", #"{"a" 1}"#, "{a:1}", "{1:1}", "'a'", #""\ud83d""#, #""\ude00""#, #""\ud83d\u0041""#, #""\x""#,
            #""\u12""#, #""\u12G4""#, "\"abc", "\"a\u{1}b\"", "\"a\nb\"", "tru", "nul", "falsey", "[1]x", "{} {}",
            "[", "[1", "[1,", "{", #"{"a""#, #"{"a":"#, #"{"a":1"#, "]", "}", ",", "1 2",
        ])
    func invalidText(text: String) {
        #expect {
            try JSONParser.parse(Array(text.utf8))
        } throws: { error in
            guard case .dataCorrupted = error as? DecodingError else { return false }
            return true
        }
    }

    @Test("Invalid UTF-8 in a string is rejected")
    func invalidUTF8() {
        #expect(throws: DecodingError.self) { try JSONParser.parse([0x22, 0xFF, 0x22]) }
        #expect(throws: DecodingError.self) { try JSONParser.parse([0x22, 0xED, 0xA0, 0x80, 0x22]) }
    }

    @Test("Nesting is bounded, so garbage from a socket cannot overflow the stack")
    func depth() throws {
        let limit = JSONParser.maxDepth
        let deep = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        #expect(throws: Never.self) { try JSONParser.parse(Array(deep.utf8)) }
        let tooDeep = String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)
        #expect(throws: DecodingError.self) { try JSONParser.parse(Array(tooDeep.utf8)) }
        let objects = String(repeating: #"{"a":"#, count: limit + 1) + "1" + String(repeating: "}", count: limit + 1)
        #expect(throws: DecodingError.self) { try JSONParser.parse(Array(objects.utf8)) }
        #expect(throws: DecodingError.self) {
            try JSONParser.parse(Array(repeating: UInt8(ascii: "["), count: 1_000_000))
        }
    }

    @Test("Not-finite numbers cannot be encoded")
    func notFinite() {
        #expect(throws: EncodingError.self) { try JSONLines.encode([Double.nan]) }
        #expect(throws: EncodingError.self) { try JSONLines.encode(["x": Float.infinity]) }
    }
}
