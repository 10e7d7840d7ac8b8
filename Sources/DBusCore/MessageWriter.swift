import CBlueZ

/// Appends ``DBusValue``s to a message with `DBusMessageIter`.
///
/// Values are validated first (``ValueValidator``): libdbus aborts the process on
/// invalid input instead of returning an error.
enum MessageWriter {
    static func append(_ values: [DBusValue], to message: OpaquePointer) throws {
        try ValueValidator.validate(values)
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(message, &iter)
        for value in values { try write(value, into: &iter) }
    }

    private static func write(_ value: DBusValue, into iter: inout DBusMessageIter) throws {
        switch value {
        case .array(let element, let items):
            try container(cbluez_type_array, element.rawValue, into: &iter) { sub in
                if element.rawValue == "y" { return try writeBytes(items, into: &sub) }
                for item in items { try write(item, into: &sub) }
            }
        case .dictionary(let dictionary):
            try container(cbluez_type_array, dictionary.entryTypeText, into: &iter) { sub in
                for entry in dictionary.entries {
                    try container(cbluez_type_dict_entry, nil, into: &sub) { pair in
                        try write(entry.key, into: &pair)
                        try write(entry.value, into: &pair)
                    }
                }
            }
        case .structure(let fields):
            try container(cbluez_type_struct, nil, into: &iter) { sub in
                for field in fields { try write(field, into: &sub) }
            }
        case .variant(let inner):
            try container(cbluez_type_variant, inner.signatureText, into: &iter) { sub in
                try write(inner, into: &sub)
            }
        default:
            try writeBasic(value, into: &iter)
        }
    }

    private static func container(
        _ type: Int32, _ signature: String?, into iter: inout DBusMessageIter,
        _ body: (inout DBusMessageIter) throws -> Void
    ) throws {
        var sub = DBusMessageIter()
        guard dbus_message_iter_open_container(&iter, type, signature, &sub) != 0 else { throw outOfMemory }
        do {
            try body(&sub)
        } catch {
            dbus_message_iter_abandon_container(&iter, &sub)
            throw error
        }
        guard dbus_message_iter_close_container(&iter, &sub) != 0 else { throw outOfMemory }
    }

    private static func writeBytes(_ items: [DBusValue], into sub: inout DBusMessageIter) throws {
        var bytes = [UInt8]()
        bytes.reserveCapacity(items.count)
        for case .byte(let b) in items { bytes.append(b) }
        let ok = bytes.withUnsafeBufferPointer { buffer -> dbus_bool_t in
            var base = buffer.baseAddress ?? UnsafePointer(bitPattern: 1)
            return dbus_message_iter_append_fixed_array(&sub, cbluez_type_byte, &base, Int32(buffer.count))
        }
        guard ok != 0 else { throw outOfMemory }
    }

    private static func writeBasic(_ value: DBusValue, into iter: inout DBusMessageIter) throws {
        var basic = DBusBasicValue()
        let type: Int32
        switch value {
        case .byte(let v): (type, basic.byt) = (cbluez_type_byte, v)
        case .boolean(let v): (type, basic.bool_val) = (cbluez_type_boolean, v ? 1 : 0)
        case .int16(let v): (type, basic.i16) = (cbluez_type_int16, v)
        case .uint16(let v): (type, basic.u16) = (cbluez_type_uint16, v)
        case .int32(let v): (type, basic.i32) = (cbluez_type_int32, v)
        case .uint32(let v): (type, basic.u32) = (cbluez_type_uint32, v)
        case .int64(let v): (type, basic.i64) = (cbluez_type_int64, dbus_int64_t(v))
        case .uint64(let v): (type, basic.u64) = (cbluez_type_uint64, dbus_uint64_t(v))
        case .double(let v): (type, basic.dbl) = (cbluez_type_double, v)
        case .unixFD(let fd): (type, basic.fd) = (cbluez_type_unix_fd, fd.rawValue)
        case .string(let s): return try writeString(s, type: cbluez_type_string, into: &iter)
        case .objectPath(let p): return try writeString(p.rawValue, type: cbluez_type_object_path, into: &iter)
        case .signature(let g): return try writeString(g.rawValue, type: cbluez_type_signature, into: &iter)
        default: throw DBusEncodingError("not a basic type: \(value.signatureText)")
        }
        guard dbus_message_iter_append_basic(&iter, type, &basic) != 0 else { throw outOfMemory }
    }

    private static func writeString(_ text: String, type: Int32, into iter: inout DBusMessageIter) throws {
        let ok = text.withCString { pointer -> dbus_bool_t in
            var p: UnsafePointer<CChar>? = pointer
            return dbus_message_iter_append_basic(&iter, type, &p)
        }
        guard ok != 0 else { throw outOfMemory }
    }

    private static var outOfMemory: DBusError { DBusError(name: DBusError.Name.noMemory, message: "out of memory") }
}
