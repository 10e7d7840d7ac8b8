import DBusCore
import Glibc
import Testing

@Suite("Values round-trip through a real bus")
struct RoundTripTests {
    static let samples: [DBusValue] = [
        .byte(0), .byte(255), .boolean(true), .boolean(false),
        .int16(.min), .int16(.max), .uint16(.max), .int32(.min), .int32(.max), .uint32(.max),
        .int64(.min), .int64(.max), .uint64(.max), .double(-1.5e300), .double(.infinity),
        .string(""), .string("Température 44,7 °C — ✓ 温度"), .objectPath("/org/bluez/hci0"),
        .signature("a{sv}"), .array(element: "s", []), .array(element: "ay", [.bytes([]), .bytes([1, 2, 3])]),
        .bytes(Array(0...255)), .dictionary(key: "s", value: "v", []),
        .propertyMap([("Name", .string("Thermometer")), ("RSSI", .int16(-60)), ("UUIDs", .strings(["a", "b"]))]),
        .dictionary(key: "u", value: "a{sv}", [DBusDictionaryEntry(.uint32(1), .propertyMap([("x", .byte(1))]))]),
        .structure([.string("a"), .int32(1), .structure([.boolean(true)])]),
        .variant(.variant(.variant(.string("deep")))),
        .array(element: "v", [.variant(.int32(1)), .variant(.string("two"))]),
    ]

    @Test("every type echoes unchanged", arguments: samples)
    func echo(_ value: DBusValue) async throws {
        try await EchoFixture.with { fixture in
            let reply = try await fixture.call("Echo", [value])
            #expect(reply.arguments == [value])
            #expect(reply.signature == value.signature)
        }
    }

    @Test("a dictionary keeps its key and value types in one text; a value is 24 bytes")
    func dictionaryTypes() {
        let map = DBusValue.dictionary(key: "s", value: "a{sv}", [])
        guard case .dictionary(let dictionary) = map else {
            Issue.record("not a dictionary: \(map)")
            return
        }
        #expect(dictionary.key == "s" && dictionary.value == "a{sv}")
        #expect(map.signature == "a{sa{sv}}" && map.dictionaryEntries == [])
        #expect(DBusValue.string("a").dictionaryEntries == nil)
        #expect(MemoryLayout<DBusValue>.size == 24, "the mirror holds thousands")
    }

    @Test("many arguments in one message keep their order")
    func manyArguments() async throws {
        try await EchoFixture.with { fixture in
            let reply = try await fixture.call("Echo", Self.samples)
            #expect(reply.arguments == Self.samples)
        }
    }

    @Test("a unix file descriptor crosses the bus and refers to the same file")
    func unixFD() async throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let sent = try UnixFileDescriptor(duplicating: fds[1])
        try await EchoFixture.with { fixture in
            let reply = try await fixture.call("Echo", [.unixFD(sent)])
            let received = try reply.decodeSingle(UnixFileDescriptor.self)
            #expect(received.rawValue != sent.rawValue)
            #expect(received == sent)
            // Writing through the received descriptor reaches our pipe.
            #expect(write(received.rawValue, "hi", 2) == 2)
            var buffer = [UInt8](repeating: 0, count: 2)
            #expect(read(fds[0], &buffer, 2) == 2)
            #expect(buffer == Array("hi".utf8))
        }
    }

    @Test("typed decoding of a property map")
    func typedDecoding() throws {
        let map = DBusValue.propertyMap([("Name", .string("Thermometer")), ("RSSI", .int16(-60))])
        let decoded = try map.decode([String: DBusValue].self)
        #expect(try decoded["RSSI"]?.decode(Int16.self) == -60)
        #expect(throws: DBusDecodingError.self) { try decoded["Name"]?.decode(Int16.self) }
        #expect(throws: DBusDecodingError.self) { try map.decode([String].self) }
    }

    @Test("typed decoding of arrays: every element, in order; one of another type is refused")
    func typedArrays() throws {
        #expect(try DBusValue.variant(.bytes([7, 0, 255])).decode([UInt8].self) == [7, 0, 255])
        #expect(try DBusValue.bytes([]).decode([UInt8].self) == [])
        let nested = DBusValue.array(element: "ay", [.bytes([1]), .bytes([2, 3])])
        #expect(try nested.decode([[UInt8]].self) == [[1], [2, 3]])
        let stray = DBusValue.array(element: "y", [.byte(1), .int16(2)])
        #expect(throws: DBusDecodingError.self) { try stray.decode([UInt8].self) }
    }
}
