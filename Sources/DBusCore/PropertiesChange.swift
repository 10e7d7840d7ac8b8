import CBlueZ

/// The body of an `org.freedesktop.DBus.Properties.PropertiesChanged` signal.
public struct PropertiesChange: Sendable, Equatable {
    /// The interface whose properties changed.
    public var interface: String
    /// The new values, by property name.
    public var changed: [String: DBusValue]
    /// Properties that changed without their new values being sent.
    public var invalidated: [String]

    /// Creates a change.
    public init(interface: String, changed: [String: DBusValue], invalidated: [String]) {
        self.interface = interface
        self.changed = changed
        self.invalidated = invalidated
    }
}

extension DBusMessage {
    /// The signal's body read as a `PropertiesChanged` (`sa{sv}as`); nil for any other body.
    ///
    /// Read straight into Swift values, without the argument list of ``arguments`` and
    /// its generic conversion: a daemon following notifications reads one per value.
    public var propertiesChange: PropertiesChange? {
        guard let signature = dbus_message_get_signature(raw), strcmp(signature, "sa{sv}as") == 0 else { return nil }
        return MessageReader.readPropertiesChange(raw)
    }
}

extension MessageReader {
    /// Reads a body whose signature is `sa{sv}as`; libdbus validated it on receipt.
    static func readPropertiesChange(_ message: OpaquePointer) -> PropertiesChange? {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(message, &iter) != 0, case .string(let interface) = read(&iter) else {
            return nil
        }
        dbus_message_iter_next(&iter)
        var entries = DBusMessageIter()
        dbus_message_iter_recurse(&iter, &entries)
        var changed: [String: DBusValue] = [:]
        while dbus_message_iter_get_arg_type(&entries) == cbluez_type_dict_entry {
            var entry = DBusMessageIter()
            dbus_message_iter_recurse(&entries, &entry)
            guard case .string(let name) = read(&entry) else { return nil }
            dbus_message_iter_next(&entry)
            guard dbus_message_iter_get_arg_type(&entry) == cbluez_type_variant else { return nil }
            var value = DBusMessageIter()
            dbus_message_iter_recurse(&entry, &value)
            changed[name] = read(&value)
            dbus_message_iter_next(&entries)
        }
        dbus_message_iter_next(&iter)
        guard case .array(_, let names) = read(&iter) else { return nil }
        var invalidated: [String] = []
        for case .string(let name) in names { invalidated.append(name) }
        return PropertiesChange(interface: interface, changed: changed, invalidated: invalidated)
    }
}
