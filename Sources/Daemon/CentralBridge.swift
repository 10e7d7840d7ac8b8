import BlectlProtocol
public import Central
public import ReadingHub
public import SensorModel
public import UnixSupport

/// Connects the BLE side to the hub: thermometer events become hub events, in
/// order, and the hub's scan and read requests go to the monitor.
public final class CentralBridge: CentralControl {
    private let monitor: ThermometerMonitor

    /// Creates the monitor over `central` and starts forwarding its events to `hub`.
    ///
    /// Events are applied on the hub's event loop in the order the monitor reported
    /// them; when the hub shares the central's executor (as in blectld) that is the
    /// thread the monitor reports on, so a reading reaches the hub without a hop.
    public init(
        hub: Hub, central: CentralManager, configuration: ThermometerConfiguration, log: Log
    ) {
        monitor = ThermometerMonitor(central: central, configuration: configuration, log: log) { [hub] event in
            // On the hub's loop already (blectld): apply now. Every event comes this one
            // way, so the order holds either way.
            if hub.executor.isCurrent {
                hub.assumeIsolated(passing: event) { $0.apply($1) }
            } else {
                hub.executor.execute { hub.assumeIsolated { $0.apply(event) } }
            }
        }
    }

    /// Starts the monitor: scanning and connecting begin.
    public func start() async { await monitor.start() }

    /// Unsubscribes, disconnects and stops scanning.
    public func shutdown() async {
        await monitor.shutdown()
    }

    /// Scans for `duration` (a `scan` request), on top of the monitor's own windows.
    public func scan(for duration: Duration) async throws {
        await monitor.scan(for: duration)
    }

    /// Reads the thermometer at `address` now (a `read` request).
    public func readNow(address: BluetoothAddress) async throws {
        do {
            try await monitor.readNow(address)
        } catch {
            throw ErrorInfo(.unavailable, "\(error)")
        }
    }
}
