import CBlueZ

/// A D-Bus message: a method call, a reply, an error or a signal.
///
/// The object owns one libdbus reference. Messages are immutable once built or
/// received, so reading them from any thread is safe.
public final class DBusMessage: @unchecked Sendable {
    // @unchecked: libdbus messages are not mutated after construction (readers only
    // walk them with iterators) and their reference count is atomic.
    let raw: OpaquePointer

    /// Wraps a message and takes over one reference to it.
    init(taking raw: OpaquePointer) { self.raw = raw }

    deinit { dbus_message_unref(raw) }

    /// The four kinds of D-Bus message.
    public enum Kind: Sendable, Equatable {
        case methodCall, methodReturn, error, signal
    }

    /// The kind of message.
    public var kind: Kind {
        switch dbus_message_get_type(raw) {
        case Int32(cbluez_message_type_method_call): .methodCall
        case Int32(cbluez_message_type_method_return): .methodReturn
        case Int32(cbluez_message_type_error): .error
        default: .signal
        }
    }

    /// The serial number the sender gave the message.
    public var serial: UInt32 { dbus_message_get_serial(raw) }
    /// For replies and errors: the serial of the call answered.
    public var replySerial: UInt32 { dbus_message_get_reply_serial(raw) }
    /// The object path, for calls and signals.
    public var path: ObjectPath? { string(dbus_message_get_path(raw)).map(ObjectPath.init(unchecked:)) }
    /// The interface, for calls and signals.
    public var interface: String? { string(dbus_message_get_interface(raw)) }
    /// The member (method or signal name).
    public var member: String? { string(dbus_message_get_member(raw)) }
    /// The error name, for errors.
    public var errorName: String? { string(dbus_message_get_error_name(raw)) }
    /// The sender's unique bus name (`:1.42`).
    public var sender: String? { string(dbus_message_get_sender(raw)) }
    /// The destination bus name.
    public var destination: String? { string(dbus_message_get_destination(raw)) }
    /// The signature of the body.
    public var signature: Signature { Signature(unchecked: string(dbus_message_get_signature(raw)) ?? "") }
    /// Whether the caller asked for no reply.
    var noReplyExpected: Bool { dbus_message_get_no_reply(raw) != 0 }

    /// All body arguments, decoded.
    public var arguments: [DBusValue] { MessageReader.readAll(raw) }

    /// The argument at `index` as `T`; a typed error when it is missing or of another type.
    public func argument<T: DBusConvertible>(_ index: Int, as type: T.Type = T.self) throws -> T {
        let values = arguments
        guard values.indices.contains(index) else {
            throw DBusDecodingError(
                expected: T.dbusSignature.rawValue, found: "", context: "argument \(index) of '\(signature)'")
        }
        return try values[index].decode(T.self, context: "argument \(index)")
    }

    /// The reply's only argument as `T`; a typed error unless the body is exactly one `T`.
    public func decodeSingle<T: DBusConvertible>(_ type: T.Type = T.self) throws -> T {
        guard signature == T.dbusSignature else {
            throw DBusDecodingError(
                expected: T.dbusSignature.rawValue, found: signature.rawValue, context: "reply body")
        }
        return try argument(0, as: T.self)
    }

    /// For an error message: the error it carries (its first string argument is the message).
    public var error: DBusError? {
        guard kind == .error else { return nil }
        var text = ""
        if case .string(let message)? = arguments.first { text = message }
        return DBusError(name: errorName ?? DBusError.Name.failed, message: text)
    }

    private func string(_ pointer: UnsafePointer<CChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }
}

extension DBusMessage {
    /// Builds a method call.
    public static func methodCall(
        destination: String?, path: ObjectPath, interface: String?, member: String,
        arguments: [DBusValue] = []
    ) throws -> DBusMessage {
        if let destination { try Names.validateBusName(destination) }
        if let interface { try Names.validateInterface(interface) }
        try Names.validateMember(member)
        guard let raw = dbus_message_new_method_call(destination, path.rawValue, interface, member) else {
            throw DBusError(name: DBusError.Name.noMemory)
        }
        return try DBusMessage(taking: raw).appending(arguments)
    }

    /// Builds a signal: broadcast, or sent to one connection when `destination` is given.
    public static func signal(
        path: ObjectPath, interface: String, member: String, arguments: [DBusValue] = [],
        destination: String? = nil
    ) throws -> DBusMessage {
        try Names.validateInterface(interface)
        try Names.validateMember(member)
        if let destination { try Names.validateBusName(destination) }
        guard let raw = dbus_message_new_signal(path.rawValue, interface, member) else {
            throw DBusError(name: DBusError.Name.noMemory)
        }
        if let destination, dbus_message_set_destination(raw, destination) == 0 {
            dbus_message_unref(raw)
            throw DBusError(name: DBusError.Name.noMemory)
        }
        return try DBusMessage(taking: raw).appending(arguments)
    }

    /// Builds the successful reply to this call.
    func makeReply(_ arguments: [DBusValue] = []) throws -> DBusMessage {
        guard let reply = dbus_message_new_method_return(raw) else {
            throw DBusError(name: DBusError.Name.noMemory)
        }
        return try DBusMessage(taking: reply).appending(arguments)
    }

    /// Builds an error reply to this call.
    func makeErrorReply(_ error: DBusError) throws -> DBusMessage {
        let name = (try? Names.validateErrorName(error.name)) != nil ? error.name : DBusError.Name.failed
        guard let reply = dbus_message_new_error(raw, name, nil) else {
            throw DBusError(name: DBusError.Name.noMemory)
        }
        // The message goes through the validating writer: libdbus aborts on bad UTF-8.
        return try DBusMessage(taking: reply).appending([.string(error.message)])
    }

    /// Asks the receiver not to reply (for calls whose answer nobody waits for).
    func setNoReply(_ noReply: Bool) { dbus_message_set_no_reply(raw, noReply ? 1 : 0) }

    /// A copy that can be sent again: a message once sent keeps its serial and is locked.
    func copy() throws -> DBusMessage {
        guard let copy = dbus_message_copy(raw) else {
            throw DBusError(name: DBusError.Name.noMemory, message: "cannot copy a message")
        }
        return DBusMessage(taking: copy)
    }

    private func appending(_ arguments: [DBusValue]) throws -> DBusMessage {
        try MessageWriter.append(arguments, to: raw)
        return self
    }
}
