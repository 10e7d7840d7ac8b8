@_spi(Fuzzing) import BlueZClient
import DBusCore

extension FuzzTarget {
    /// One marshalled D-Bus message: libdbus demarshals it (refusing what a bus would
    /// refuse), our reader reads every argument, and our writer must take them back.
    static let dbusMessages = FuzzTarget(
        name: "dbus", summary: "a marshalled D-Bus message: demarshalled, read, written back, read as BlueZ's shapes"
    ) { bytes in
        guard let message = try? DBusMessage(marshalled: bytes) else { return false }
        let arguments = message.arguments
        require(
            arguments.map(\.signature.rawValue).joined() == message.signature.rawValue,
            "arguments \(arguments) do not match the signature '\(message.signature)'")
        requireRoundTrip(arguments, of: bytes)
        if let change = message.propertiesChange {
            require(message.signature == "sa{sv}as", "a PropertiesChanged read from '\(message.signature)'")
            require(change.interface == (try? message.argument(0, as: String.self)), "PropertiesChanged's interface")
        }
        _ = (message.kind, message.serial, message.replySerial, message.path, message.interface, message.member)
        _ = (message.errorName, message.sender, message.destination, message.error)
        _ = try? message.decodeSingle([ObjectPath: [String: [String: DBusValue]]].self)
        _ = try? message.decodeSingle([String: DBusValue].self)
        for argument in arguments {
            _ = try? argument.decode([String: [String: DBusValue]].self)
            _ = try? argument.decode([String: DBusValue].self)
            _ = try? argument.decode([UInt16: DBusValue].self)
            _ = try? argument.decode([UInt8].self)
            _ = try? argument.decode([String].self)
        }
        return true
    }

    /// A run of marshalled messages from bluetoothd: the first, if it is a
    /// `GetManagedObjects` reply, is the snapshot; every one is then applied as a signal,
    /// and every typed view of the resulting objects is built.
    static let bluezObjects = FuzzTarget(
        name: "bluez", summary: "marshalled messages: a GetManagedObjects snapshot, then signals, then every typed view"
    ) { bytes in
        let messages = splitMessages(bytes).compactMap { try? DBusMessage(marshalled: $0) }
        var probe = MirrorProbe()
        if let first = messages.first { _ = probe.loadSnapshot(first) }
        var events = 0
        for message in messages { events += probe.apply(message).count }
        return probe.buildViews() + events > 0
    }
}

/// What our reader read, our writer writes back: a copy with the same arguments has the
/// same body (for a little-endian original: libdbus checks padding and booleans, so a
/// valid body has one form), and reading the copy gives values that write the same again.
///
/// The one exception: a descriptor index past the message's descriptors (libdbus accepts
/// the message and reads the value as -1), which the writer refuses as not open.
private func requireRoundTrip(_ arguments: [DBusValue], of original: [UInt8]) {
    let copy: DBusMessage
    do {
        copy = try DBusMessage.signal(path: "/fuzz", interface: "org.blectl.Fuzz", member: "Copy", arguments: arguments)
    } catch let error as DBusEncodingError where error.reason == "file descriptor -1 is not open" {
        return require(arguments.contains(where: holdsInvalidDescriptor), "\(error) for \(arguments)")
    } catch {
        return require(false, "the writer refused what the reader read: \(error); \(arguments)")
    }
    let copied = copy.marshalled
    if original.first == UInt8(ascii: "l") {
        require(body(of: copied) == body(of: original), "the copy's body differs from the original's")
    }
    let again = try? DBusMessage.signal(
        path: "/fuzz", interface: "org.blectl.Fuzz", member: "Copy", arguments: copy.arguments)
    require(again.map { body(of: $0.marshalled) } == body(of: copied), "reading the copy changed the values")
}

/// Whether `value` holds a descriptor libdbus read as -1.
private func holdsInvalidDescriptor(_ value: DBusValue) -> Bool {
    switch value {
    case .unixFD(let descriptor): descriptor.rawValue == -1
    case .array(_, let items), .structure(let items): items.contains(where: holdsInvalidDescriptor)
    case .dictionary(let dictionary):
        dictionary.entries.contains { holdsInvalidDescriptor($0.key) || holdsInvalidDescriptor($0.value) }
    case .variant(let inner): holdsInvalidDescriptor(inner)
    default: false
    }
}

/// A marshalled message's body: its last bytes, as many as the fixed header says.
private func body(of message: [UInt8]) -> ArraySlice<UInt8> {
    guard let length = headerWord(message, message: 0, at: 4) else { return [] }
    return message.suffix(length)
}

/// Splits bytes into messages by the lengths their fixed headers declare (the rest, if any,
/// is left out).
func splitMessages(_ bytes: [UInt8]) -> [[UInt8]] {
    var messages: [[UInt8]] = []
    var start = 0
    while let bodyLength = headerWord(bytes, message: start, at: 4),
        let fieldsLength = headerWord(bytes, message: start, at: 12)
    {
        // The fixed header with the fields array's length (16 bytes), the fields padded to 8, the body.
        let end = start + 16 + (fieldsLength + 7) / 8 * 8 + bodyLength
        guard end <= bytes.count else { break }
        messages.append(Array(bytes[start..<end]))
        start = end
    }
    return messages
}

/// The 32-bit word at `offset` in the fixed header of the message starting at `start`, in
/// the byte order its first byte names (`l` little-endian, else big-endian).
private func headerWord(_ bytes: [UInt8], message start: Int, at offset: Int) -> Int? {
    guard start + 16 <= bytes.count else { return nil }
    let word = bytes[start + offset..<start + offset + 4]
    let ordered = bytes[start] == UInt8(ascii: "l") ? Array(word.reversed()) : Array(word)
    return Int(ordered.reduce(0) { $0 << 8 | UInt32($1) })
}
