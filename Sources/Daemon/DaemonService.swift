import BlectlProtocol
import Central
import HistoryStore
import HTTPOutput
import MQTTOutput
public import ReadingHub
import SocketOutput
public import ConcurrencySupport
public import UnixSupport

/// The hub and its outputs wired together: the part of blectld that is not Bluetooth.
///
/// Every output plugs into the hub the same way (``HubOutput``): it receives each event in
/// `seq` order (``Hub/addListener(_:)``), adds its part to `status`, and a client or output
/// that fell behind asks the history store for what it missed. Adding an output is its
/// factory (`DaemonConfiguration+Outputs.swift`) and a line in ``init(configuration:stateDirectory:log:executor:inheritedListener:)``.
///
/// ```swift
/// let service = try DaemonService(configuration: configuration, stateDirectory: dir, log: log, executor: central.executor)
/// let bridge = CentralBridge(hub: service.hub, …)   // reports through hub.apply(_:)
/// await service.hub.attach(bridge)
/// try await service.start()
/// …
/// await service.stop()
/// ```
public final class DaemonService: Sendable {
    /// The daemon's state; the central bridge feeds it.
    public let hub: Hub
    /// The outputs the configuration asks for, in the order they are attached and opened:
    /// the history first (the others may ask it for what they missed; it is closed last).
    let outputs: [any HubOutput]

    /// Opens the history store in `stateDirectory` (unless `history = no`) and builds the
    /// hub, numbering on from the store's last sequence number, and the outputs; nothing is
    /// served yet.
    ///
    /// - Parameters:
    ///   - executor: what the hub, and under it the socket server, run on (blectld passes the
    ///     central's, so a reading goes from D-Bus to the socket on one thread).
    ///   - inheritedListener: the listening socket systemd passed (socket activation).
    /// - Throws: when the history database is another process's or too new, or an output's
    ///   settings are wrong, or MQTT is configured without the history (exit 78).
    public init(
        configuration: DaemonConfiguration, stateDirectory: String, log: Log, executor: EventLoop? = nil,
        inheritedListener: Int32? = nil
    ) throws(ServiceError) {
        if !configuration.history, configuration.mqtt.broker != nil {
            throw ServiceError(
                description: "mqtt_url needs the history (history = yes): readings wait there while the broker is away")
        }
        let history: HistoryStore?
        let mqtt: MQTTOutput?
        do {
            history = try HistoryStore.configured(by: configuration, stateDirectory: stateDirectory, log: log)
            mqtt = try MQTTOutput.configured(by: configuration, stateDirectory: stateDirectory, log: log)
        } catch {
            throw ServiceError(description: "\(error)")
        }
        let hub = Hub(
            limits: configuration.hub, lastSeq: history?.lastSeq ?? 0, executor: executor, sensors: KnownSensors.catalog
        )
        self.hub = hub
        // One line per output; HTTP listens before the socket, so a client never finds the
        // socket up and the page refused.
        let outputs: [(any HubOutput)?] = [
            history,
            mqtt,
            HTTPOutput.configured(by: configuration, hub: hub, log: log),
            SocketServer.configured(by: configuration, hub: hub, log: log, inheritedListener: inheritedListener),
        ]
        self.outputs = outputs.compactMap { $0 }
    }

    /// Attaches every output to the hub, then opens them in order (HTTP and the socket start
    /// listening).
    ///
    /// - Throws: the first output that could not open (blectld then exits).
    public func start() async throws(OutputStartError) {
        for output in outputs { await output.attach(to: hub) }
        for output in outputs { try await output.open() }
    }

    /// Closes the outputs in reverse order: the socket and HTTP stop serving, MQTT flushes,
    /// and the history commits and closes last.
    public func stop() async {
        for output in outputs.reversed() { await output.close() }
    }
}

/// Why the daemon's service could not be built: a configuration problem (exit 78).
public struct ServiceError: Error, CustomStringConvertible {
    /// What went wrong, for the log.
    public let description: String
}
