import CBlueZ

extension DBusMessage {
    /// Reads a message from its D-Bus wire format (header and body, as
    /// ``marshalled`` gives it or `dbus-monitor --binary` records it).
    ///
    /// libdbus checks the bytes as it checks every message a connection receives, so the
    /// message holds only what a bus could deliver. Bytes that are not exactly one whole,
    /// valid message throw `org.freedesktop.DBus.Error.InvalidArgs`.
    public convenience init(marshalled bytes: [UInt8]) throws {
        var error = CBlueZ.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        // libdbus reports a message cut short as if memory ran out: check the length first.
        guard Self.wireLength(bytes) == bytes.count, let count = Int32(exactly: bytes.count) else {
            throw DBusError(name: DBusError.Name.invalidArgs, message: "not one whole D-Bus message")
        }
        let raw = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { dbus_message_demarshal($0.baseAddress, count, &error) }
        }
        guard let raw else {
            throw DBusError(name: DBusError.Name.invalidArgs, message: LibDBus.error(from: error).message)
        }
        self.init(taking: raw)
    }

    /// The message in D-Bus wire format: what a connection sends for it.
    ///
    /// A message not sent yet has no serial, which no receiver accepts: its copy gets serial 1.
    public var marshalled: [UInt8] {
        var pointer: UnsafeMutablePointer<CChar>?
        var count: Int32 = 0
        guard dbus_message_marshal(raw, &pointer, &count) != 0, let pointer else { return [] }
        defer { dbus_free(pointer) }
        var bytes = [UInt8](UnsafeRawBufferPointer(start: pointer, count: Int(count)))
        if serial == 0, bytes.count >= 12 {
            // The serial is the fixed header's third word, in the byte order of byte 0.
            bytes[bytes[0] == UInt8(ascii: "l") ? 8 : 11] = 1
        }
        return bytes
    }

    /// The length the message at the start of `bytes` declares (libdbus's own reckoning),
    /// or nil when its fixed header is incomplete or invalid.
    private static func wireLength(_ bytes: [UInt8]) -> Int? {
        let needed = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) {
                dbus_message_demarshal_bytes_needed($0.baseAddress, Int32(clamping: $0.count))
            }
        }
        return needed > 0 ? Int(needed) : nil
    }
}
