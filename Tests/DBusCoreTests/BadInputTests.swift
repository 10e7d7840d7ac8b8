import DBusCore
import Testing

@Suite("Bad input gives typed errors and the process lives")
struct BadInputTests {
    @Test("a reply with the wrong signature is a DBusDecodingError")
    func wrongSignature() async throws {
        try await EchoFixture.with { fixture in
            let reply = try await fixture.call("WrongReply")
            let error = #expect(throws: DBusDecodingError.self) { try reply.decodeSingle(String.self) }
            #expect(error?.expected == "s")
            #expect(error?.found == "i")
            #expect(throws: DBusDecodingError.self) { try reply.argument(3, as: Int32.self) }
        }
    }

    @Test("values nested deeper than D-Bus allows are refused before sending")
    func deepNesting() throws {
        var value = DBusValue.int32(1)
        for _ in 0..<70 { value = .variant(value) }
        #expect(throws: DBusEncodingError.self) {
            try DBusMessage.signal(path: "/x", interface: "a.b", member: "C", arguments: [value])
        }
        var arrays = DBusValue.int32(1)
        for _ in 0..<33 { arrays = .array(element: arrays.signature, [arrays]) }
        #expect(throws: DBusEncodingError.self) {
            try DBusMessage.signal(path: "/x", interface: "a.b", member: "C", arguments: [arrays])
        }
    }

    @Test("an oversized array is refused before sending")
    func oversized() throws {
        let big = DBusValue.array(
            element: "s", Array(repeating: .string(String(repeating: "x", count: 1 << 20)), count: 70))
        #expect(throws: DBusEncodingError.self) {
            try DBusMessage.signal(path: "/x", interface: "a.b", member: "C", arguments: [big])
        }
    }

    @Test("invalid names, paths, strings and mixed arrays are typed errors, not aborts")
    func invalidNames() throws {
        for bad in ["no/slash", "/trailing/", "/a//b", "/dash-ed", ""] { #expect(ObjectPath(bad) == nil) }
        for bad in ["a{vs}", "(", "a", "z"] { #expect(Signature(bad) == nil) }
        #expect(throws: DBusEncodingError.self) {
            try DBusMessage.methodCall(destination: "bad..name", path: "/", interface: nil, member: "M")
        }
        #expect(throws: DBusEncodingError.self) {
            try DBusMessage.signal(path: "/", interface: "a.b", member: "C", arguments: [.string("nul\0inside")])
        }
        #expect(throws: DBusEncodingError.self) {
            try DBusMessage.signal(
                path: "/", interface: "a.b", member: "C", arguments: [.array(element: "s", [.int32(1)])])
        }
    }

    @Test("a bus that does not exist is a DBusError, not a crash")
    func noBus() async throws {
        let error = await #expect(throws: DBusError.self) {
            try await DBusConnection.connect(to: .address("unix:path=/nonexistent/blectl-bus"))
        }
        #expect(error?.name.hasPrefix("org.freedesktop.DBus.Error.") == true)
    }
}
