import CBlueZ

/// A libdbus connection pointer.
struct RawConnection: @unchecked Sendable {
    // @unchecked: the pointer is only dereferenced on the owning connection's event loop.
    let pointer: OpaquePointer

    /// Opens and registers a private connection; blocks, so call it on the connection's event loop.
    static func open(_ bus: BusAddress) throws -> (RawConnection, String) {
        LibDBus.initializeOnce()
        var error = CBlueZ.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }
        let pointer: OpaquePointer?
        switch bus {
        case .system: pointer = dbus_bus_get_private(DBUS_BUS_SYSTEM, &error)
        case .session: pointer = dbus_bus_get_private(DBUS_BUS_SESSION, &error)
        case .address(let address):
            pointer = dbus_connection_open_private(address, &error)
            if let pointer, dbus_bus_register(pointer, &error) == 0 {
                dbus_connection_close(pointer)
                dbus_connection_unref(pointer)
                throw LibDBus.error(from: error)
            }
        }
        guard let pointer else { throw LibDBus.error(from: error) }
        // A bus that goes away must not exit the process (libdbus's default for bus connections).
        dbus_connection_set_exit_on_disconnect(pointer, 0)
        let name = dbus_bus_get_unique_name(pointer).map { String(cString: $0) } ?? ""
        return (RawConnection(pointer: pointer), name)
    }
}

enum LibDBus {
    /// libdbus must be made thread-aware once, before any connection exists.
    private static let initialized: Bool = {
        dbus_threads_init_default()
        return true
    }()

    static func initializeOnce() { _ = initialized }

    static func error(from error: CBlueZ.DBusError) -> DBusError {
        let name = error.name.map { String(cString: $0) } ?? DBusError.Name.failed
        let message = error.message.map { String(cString: $0) } ?? ""
        return DBusError(name: name, message: message)
    }
}
