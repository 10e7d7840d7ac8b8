public import DBusCore

/// A change in BlueZ's object tree, delivered after the mirror is updated.
public enum BlueZEvent: Sendable {
    /// bluetoothd is on the bus and the mirror holds a fresh snapshot.
    case serviceAppeared
    /// bluetoothd left the bus (stopped or crashed); the mirror is empty and
    /// every link, scan and notification session is gone.
    case serviceVanished
    /// Interfaces (with their properties) appeared at a path.
    case interfacesAdded(ObjectPath, [String])
    /// Interfaces disappeared from a path.
    case interfacesRemoved(ObjectPath, [String])
    /// Properties changed or were invalidated.
    case propertiesChanged(ObjectPath, interface: String, changed: [String: DBusValue], invalidated: [String])
}
