import CBlueZ

/// Validation of bus, interface, member and error names.
///
/// libdbus aborts the process when handed an invalid name, so every name is
/// checked here first and turned into a typed error.
enum Names {
    static func validateBusName(_ name: String) throws {
        try check(name, "bus name") { dbus_validate_bus_name($0, nil) }
    }

    static func validateInterface(_ name: String) throws {
        try check(name, "interface name") { dbus_validate_interface($0, nil) }
    }

    static func validateMember(_ name: String) throws {
        try check(name, "member name") { dbus_validate_member($0, nil) }
    }

    static func validateErrorName(_ name: String) throws {
        try check(name, "error name") { dbus_validate_error_name($0, nil) }
    }

    private static func check(
        _ name: String, _ what: String, _ validate: (UnsafePointer<CChar>) -> dbus_bool_t
    ) throws {
        guard !name.utf8.contains(0), name.withCString(validate) != 0 else {
            throw DBusEncodingError("invalid D-Bus \(what): '\(name)'")
        }
    }
}
