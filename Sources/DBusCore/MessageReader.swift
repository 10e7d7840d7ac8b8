import CBlueZ

/// Reads a message body into ``DBusValue``s with `DBusMessageIter`.
///
/// libdbus validates every received message against its signature and the
/// specification's limits, so the reader only follows the types it is given.
enum MessageReader {
    static func readAll(_ message: OpaquePointer) -> [DBusValue] {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(message, &iter) != 0 else { return [] }
        return readSequence(&iter)
    }

    private static func readSequence(_ iter: inout DBusMessageIter) -> [DBusValue] {
        var values: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&iter) != cbluez_type_invalid {
            values.append(read(&iter))
            dbus_message_iter_next(&iter)
        }
        return values
    }

    static func read(_ iter: inout DBusMessageIter) -> DBusValue {
        let type = dbus_message_iter_get_arg_type(&iter)
        switch type {
        case cbluez_type_array: return readArray(&iter)
        case cbluez_type_struct, cbluez_type_dict_entry:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            return .structure(readSequence(&sub))
        case cbluez_type_variant:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            return .variant(read(&sub))
        default:
            return readBasic(&iter, type: type)
        }
    }

    private static func readBasic(_ iter: inout DBusMessageIter, type: Int32) -> DBusValue {
        var basic = DBusBasicValue()
        dbus_message_iter_get_basic(&iter, &basic)
        switch type {
        case cbluez_type_byte: return .byte(basic.byt)
        case cbluez_type_boolean: return .boolean(basic.bool_val != 0)
        case cbluez_type_int16: return .int16(basic.i16)
        case cbluez_type_uint16: return .uint16(basic.u16)
        case cbluez_type_int32: return .int32(basic.i32)
        case cbluez_type_uint32: return .uint32(basic.u32)
        case cbluez_type_int64: return .int64(Int64(basic.i64))
        case cbluez_type_uint64: return .uint64(UInt64(basic.u64))
        case cbluez_type_double: return .double(basic.dbl)
        case cbluez_type_string: return .string(String(cString: basic.str))
        case cbluez_type_object_path: return .objectPath(ObjectPath(unchecked: String(cString: basic.str)))
        case cbluez_type_signature: return .signature(Signature(unchecked: String(cString: basic.str)))
        case cbluez_type_unix_fd:
            // libdbus hands out a duplicate that the reader owns.
            return .unixFD(UnixFileDescriptor(taking: basic.fd))
        default:
            return .structure([])
        }
    }

    private static func readArray(_ iter: inout DBusMessageIter) -> DBusValue {
        let elementType = dbus_message_iter_get_element_type(&iter)
        var sub = DBusMessageIter()
        dbus_message_iter_recurse(&iter, &sub)
        if elementType == cbluez_type_byte { return .array(element: UInt8.dbusSignature, readBytes(&sub)) }
        // Basic element types are their own one-letter signature: no signature text to fetch.
        if let basic = basicSignature(elementType) { return .array(element: basic, readSequence(&sub)) }
        let element = elementSignature(&iter)
        if elementType == cbluez_type_dict_entry { return readDictionary(&sub, element: element) }
        return .array(element: element, readSequence(&sub))
    }

    /// The signature of a basic type code (`y`, `s`, …); nil for containers.
    private static func basicSignature(_ type: Int32) -> Signature? {
        switch type {
        case cbluez_type_byte, cbluez_type_boolean, cbluez_type_int16, cbluez_type_uint16, cbluez_type_int32,
            cbluez_type_uint32, cbluez_type_int64, cbluez_type_uint64, cbluez_type_double, cbluez_type_string,
            cbluez_type_object_path, cbluez_type_signature, cbluez_type_unix_fd:
            return Signature(unchecked: String(Unicode.Scalar(UInt8(type))))
        default:
            return nil
        }
    }

    /// Byte arrays (characteristic values) are read in one copy, not byte by byte.
    private static func readBytes(_ sub: inout DBusMessageIter) -> [DBusValue] {
        var pointer: UnsafeMutableRawPointer?
        var count: Int32 = 0
        dbus_message_iter_get_fixed_array(&sub, &pointer, &count)
        guard let pointer, count > 0 else { return [] }
        let bytes = UnsafeRawBufferPointer(start: pointer, count: Int(count))
        return bytes.map { .byte($0) }
    }

    private static func readDictionary(_ sub: inout DBusMessageIter, element: Signature) -> DBusValue {
        let (key, value) = splitDictEntry(element.rawValue)
        var entries: [DBusDictionaryEntry] = []
        while dbus_message_iter_get_arg_type(&sub) == cbluez_type_dict_entry {
            var entry = DBusMessageIter()
            dbus_message_iter_recurse(&sub, &entry)
            let k = read(&entry)
            dbus_message_iter_next(&entry)
            entries.append(DBusDictionaryEntry(k, read(&entry)))
            dbus_message_iter_next(&sub)
        }
        return .dictionary(key: key, value: value, entries)
    }

    private static func elementSignature(_ iter: inout DBusMessageIter) -> Signature {
        guard let text = dbus_message_iter_get_signature(&iter) else { return .empty }
        defer { dbus_free(text) }
        return Signature(unchecked: String(String(cString: text).dropFirst()))
    }

    /// Splits `{kv…}` into the key's and the value's signatures (the key is one basic type).
    static func splitDictEntry(_ entry: String) -> (Signature, Signature) {
        let inner = entry.dropFirst().dropLast()
        return (Signature(unchecked: String(inner.prefix(1))), Signature(unchecked: String(inner.dropFirst())))
    }
}
