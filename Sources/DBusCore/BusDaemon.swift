/// Names of the message bus itself.
public enum BusDaemon {
    /// The bus's own name.
    public static let name = "org.freedesktop.DBus"
    /// The bus's object path.
    public static let path: ObjectPath = "/org/freedesktop/DBus"
    /// The bus's interface.
    public static let interface = "org.freedesktop.DBus"
}

/// Where a connection goes.
public enum BusAddress: Sendable, Equatable {
    /// The system bus (`DBUS_SYSTEM_BUS_ADDRESS`, else `/run/dbus/system_bus_socket`).
    case system
    /// The session bus (`DBUS_SESSION_BUS_ADDRESS`).
    case session
    /// A bus at an explicit address, such as `unix:path=/tmp/bus`.
    case address(String)
}
