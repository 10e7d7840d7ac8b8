import BlueZClient
import DBusCore

/// Which message bus has the `org.bluez` to use.
public enum BlueZBus: Sendable, Equatable {
    /// The system bus (where bluetoothd lives; honours `DBUS_SYSTEM_BUS_ADDRESS`).
    case system
    /// A bus at an address, such as the mock adapter's private bus.
    case address(String)
}

extension CentralManager {
    /// Opens one D-Bus connection (for the whole daemon), builds the BlueZ
    /// client and the central on it, and starts following BlueZ.
    ///
    /// Fails only when the bus cannot be reached; a missing bluetoothd or a
    /// refused policy shows up as the central's ``state``.
    public static func connect(
        to bus: BlueZBus, options: CentralOptions = CentralOptions(),
        diagnostics: @escaping @Sendable (String) -> Void = { _ in }
    ) async throws -> CentralManager {
        let connection = try await DBusConnection.connect(
            to: bus == .system ? .system : .address(bus.addressText), label: "bluez")
        let client = BlueZService(connection: connection, diagnostics: diagnostics)
        let central = CentralManager(client: client, options: options)
        try await central.start()
        return central
    }

    /// Closes the D-Bus connection: BlueZ ends our scan and notification sessions.
    public func close() async {
        await client.connection.close()
    }

    /// Calls `handler` once if the bus drops the central's D-Bus connection (dbus-daemon
    /// stopped or restarted), but not when ``close()`` closes it. Nothing works after that:
    /// a daemon should exit and let its supervisor start it again.
    public func onBusLost(_ handler: @escaping @Sendable () -> Void) async {
        await client.connection.addDropHandler(handler)
    }
}

extension BlueZBus {
    fileprivate var addressText: String {
        if case .address(let text) = self { return text }
        return ""
    }
}

extension CentralManager {
    /// Returns once the central's executor runs it: a liveness check for watchdogs.
    public func ping() {}
}
