import DBusCore
import Testing

@Suite("Messages in wire format (marshalled)")
struct WireFormatTests {
    static let values: [DBusValue] = [
        .string("org.bluez.GattCharacteristic1"), .propertyMap([("Value", .bytes(Array("112.5 F".utf8)))]),
        .strings([]),
    ]

    @Test("a message read back from its wire format has the same header and arguments")
    func roundTrip() throws {
        let message = try DBusMessage.signal(
            path: "/org/bluez/hci0/dev_DC_A6_32_00_00_01/service0015/char0016",
            interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged", arguments: Self.values)
        let copy = try DBusMessage(marshalled: message.marshalled)
        #expect(copy.kind == .signal)
        #expect(copy.serial == 1)  // an unsent message's copy gets one: serial 0 is refused
        #expect(copy.path == message.path)
        #expect(copy.interface == message.interface)
        #expect(copy.member == message.member)
        #expect(copy.signature == "sa{sv}as")
        #expect(copy.arguments == Self.values)
        #expect(copy.propertiesChange?.changed["Value"] == .bytes(Array("112.5 F".utf8)))
    }

    @Test("bytes that are not one whole valid message are InvalidArgs")
    func notAMessage() throws {
        let bytes = try DBusMessage.signal(path: "/a", interface: "a.b", member: "C", arguments: Self.values).marshalled
        for bad in [
            [], Array(bytes.prefix(15)), Array(bytes.dropLast()), bytes + [0], [UInt8](repeating: 0x6C, count: 64),
        ] {
            let error = #expect(throws: DBusError.self) { try DBusMessage(marshalled: bad) }
            #expect(error?.name == DBusError.Name.invalidArgs, "\(bad.count) bytes")
        }
    }

    @Test("a descriptor index past the message's descriptors reads as -1 and is refused when sent, clearly")
    func descriptorPastTheEnd() throws {
        // Found by the `dbus` fuzz target: libdbus delivers an `h` whose index has no
        // descriptor (the bus does not check either) and reads it as -1. The writer took -1
        // to libdbus, which failed, and it was reported as "out of memory".
        var bytes = try DBusMessage.signal(path: "/a", interface: "a.b", member: "C", arguments: [.uint32(7)])
            .marshalled
        // The signature header field `g` "u" becomes "h": same size, same alignment.
        let field: [UInt8] = [0x08, 0x01, UInt8(ascii: "g"), 0x00, 0x01, UInt8(ascii: "u"), 0x00]
        let at = try #require(bytes.indices.first { bytes[$0...].starts(with: field) })
        bytes[at + 5] = UInt8(ascii: "h")
        let message = try DBusMessage(marshalled: bytes)
        let arguments = message.arguments
        guard case .unixFD(let descriptor)? = arguments.first else {
            Issue.record("read \(arguments)")
            return
        }
        #expect(descriptor.rawValue == -1)
        let error = #expect(throws: DBusEncodingError.self) {
            try DBusMessage.signal(path: "/a", interface: "a.b", member: "C", arguments: arguments)
        }
        #expect(error?.reason == "file descriptor -1 is not open")
    }
}
