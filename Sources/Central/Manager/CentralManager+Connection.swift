public import BlueZClient

/// Which message bus has the `org.bluez` to use.
public typealias BlueZBus = BlueZClient.BlueZBus

extension CentralManager {
    /// Opens one D-Bus connection (for the whole daemon), builds the BlueZ client and the
    /// central on it, and starts following BlueZ.
    ///
    /// Fails only when the bus cannot be reached; a missing bluetoothd or a refused policy
    /// shows up as the central's ``state``.
    public static func connect(
        to bus: BlueZBus, options: CentralOptions = CentralOptions(),
        diagnostics: @escaping @Sendable (String) -> Void = { _ in }
    ) async throws -> CentralManager {
        let client = try await BlueZService.connect(to: bus, diagnostics: diagnostics)
        let central = CentralManager(client: client, options: options)
        await central.start()
        return central
    }

    /// Closes the D-Bus connection: BlueZ ends our scan and notification sessions.
    public func close() async {
        await client.close()
    }

    /// Calls `handler` once if the bus drops the central's D-Bus connection (dbus-daemon
    /// stopped or restarted), but not when ``close()`` closes it. Nothing works after that:
    /// a daemon should exit and let its supervisor start it again.
    public func onBusLost(_ handler: @escaping @Sendable () -> Void) async {
        await client.onBusLost(handler)
    }

    /// Returns once the central's executor runs it: a liveness check for watchdogs.
    public func ping() {}

    /// Forged BlueZ signals dropped so far (not sent by the owner of `org.bluez`).
    public var rejectedSignals: Int { mirror { $0.rejectedSignals } }
}
