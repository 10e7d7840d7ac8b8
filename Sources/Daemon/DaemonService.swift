import BlectlProtocol
import Central
import HistoryStore
import HTTPOutput
import MQTTOutput
public import ReadingHub
import SocketOutput
public import UnixSupport

/// The hub and its outputs wired together: the part of blectld that is not Bluetooth.
///
/// Every output plugs into the hub the same way: it receives each event in `seq` order
/// (``Hub/addListener(_:)``), may add its part to `status`, and a client or output that
/// fell behind asks the history store for what it missed. Adding an output is a line in
/// ``start(inheriting:)``.
///
/// ```swift
/// let service = try DaemonService(configuration: configuration, log: log, executor: central.executor)
/// let bridge = CentralBridge(hub: service.hub, …)   // reports through hub.apply(_:)
/// await service.hub.attach(bridge)
/// try await service.start(inheriting: listenFDs().first)
/// …
/// await service.stop()
/// ```
public final class DaemonService: Sendable {
    /// The daemon's state; the central bridge feeds it.
    public let hub: Hub
    /// The Unix socket server.
    let server: SocketServer
    /// The durable history (SQLite); nil with `history = no`.
    let history: HistoryStore?
    /// The outputs the configuration asks for beyond the socket (MQTT).
    let outputs: [any HubOutput]
    /// The page, /metrics and /api over HTTP, when `http_listen` is set.
    let http: HTTPOutput?

    /// Opens the history store in `stateDirectory` (unless `history = no`) and builds the
    /// hub, numbering on from the store's last sequence number, and the socket server;
    /// nothing is served yet.
    ///
    /// - Parameter executor: what the hub, and under it the server, run on (blectld passes
    ///   the central's, so a reading goes from D-Bus to the socket on one thread).
    /// - Throws: when the history database is another process's or too new, or an output's
    ///   settings are wrong, or MQTT is configured without the history (exit 78).
    public init(
        configuration: DaemonConfiguration, stateDirectory: String, log: Log, executor: EventLoop? = nil
    ) throws(ServiceError) {
        if !configuration.history, configuration.mqtt.broker != nil {
            throw ServiceError(
                description: "mqtt_url needs the history (history = yes): readings wait there while the broker is away")
        }
        do {
            history = try HistoryStore.configured(by: configuration, stateDirectory: stateDirectory, log: log)
            // One line per optional output: each is checked now, attached at start, closed at stop.
            outputs = [
                try MQTTOutput.configured(by: configuration, stateDirectory: stateDirectory, log: log)
            ].compactMap { $0 }
        } catch {
            throw ServiceError(description: "\(error)")
        }
        let hub = Hub(
            limits: configuration.hub, lastSeq: history?.lastSeq ?? 0, executor: executor, sensors: KnownSensors.catalog
        )
        self.hub = hub
        server = SocketServer.configured(by: configuration, hub: hub, log: log)
        http = HTTPOutput.configured(by: configuration, hub: hub, log: log)
    }

    /// Connects the outputs to the hub, then starts listening (on `fd` under socket
    /// activation, else on the configured path).
    ///
    /// - Throws: ``StartError/http(_:)`` when the HTTP output cannot listen (its address in
    ///   use, or IP sockets refused by the unit's sandbox: a configuration problem), else
    ///   ``StartError/socket(_:)``.
    public func start(inheriting fd: Int32? = nil) async throws(StartError) {
        let server = server
        if let history { await hub.attach(history: history) }
        let registration = await hub.addListener { server.broadcast($0) }
        await hub.addStatusContributor { $0.socket = SocketStatus(clients: await server.currentStatistics().clients) }
        server.noteSequence(registration.lastSeq)
        for output in outputs { await output.attach(to: hub) }
        do {
            try await http?.start()
        } catch {
            throw .http(error)
        }
        do {
            try server.start(inheriting: fd)
        } catch {
            throw .socket(error)
        }
    }

    /// Which listener could not start.
    public enum StartError: Error {
        /// The Unix socket.
        case socket(SystemError)
        /// The HTTP output's address (`http_listen`).
        case http(SystemError)
    }

    /// Closes the socket, the HTTP output, every client and the other outputs, then commits
    /// and closes the history (if kept).
    public func stop() async {
        await server.stop()
        await http?.stop()
        await withTaskGroup(of: Void.self) { group in
            for output in outputs { group.addTask { await output.close() } }
        }
        await history?.close()
    }
}

/// Why the daemon's service could not be built: a configuration problem (exit 78).
public struct ServiceError: Error, CustomStringConvertible {
    /// What went wrong, for the log.
    public let description: String
}
