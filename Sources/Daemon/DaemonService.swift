import Central
public import UnixSupport

/// The hub and the socket server wired together: the part of blectld that is not Bluetooth.
///
/// ```swift
/// let service = DaemonService(configuration: configuration, log: log, executor: central.executor)
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
    public let server: SocketServer

    /// Creates the hub and the server from the configuration; nothing runs yet.
    ///
    /// - Parameter executor: what the hub, and under it the server, run on (blectld
    ///   passes the central's, so a reading goes from D-Bus to the socket on one thread).
    public init(
        configuration: DaemonConfiguration, log: Log, central: (any CentralControl)? = nil,
        executor: EventLoop? = nil
    ) {
        hub = Hub(limits: Hub.Limits(configuration: configuration), central: central, executor: executor)
        server = SocketServer(
            configuration: SocketServer.Configuration(configuration: configuration),
            handler: RequestDispatcher(hub: hub), log: log, eventLoop: hub.executor)
    }

    /// Creates a service from parts, for tests and unusual set-ups.
    public init(hub: Hub, server: SocketServer) {
        self.hub = hub
        self.server = server
    }

    /// Routes the hub's events to the server, then starts listening (on `fd` under
    /// socket activation, else on the configured path).
    public func start(inheriting fd: Int32? = nil) async throws(SystemError) {
        let server = self.server
        let registration = await hub.addListener { event in server.broadcast(event) }
        server.noteSequence(registration.lastSeq)
        try server.start(inheriting: fd)
    }

    /// Closes the socket and every client; returns when all descriptors are closed.
    public func stop() async {
        await server.stop()
    }
}
