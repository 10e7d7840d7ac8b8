public import BlectlProtocol
public import ReadingHub
import ConcurrencySupport
public import UnixSupport

/// An output of the hub over HTTP: a page with every thermometer and its plot (`/`),
/// Prometheus metrics (`/metrics`) and the socket protocol's answers as JSON (`/api/…`).
///
/// Read-only: it serves GET and HEAD, and nothing it serves changes anything. It counts
/// what it needs from the events it receives as a listener, and reads the rest from the
/// hub (status, peripherals) and the history; at most one snapshot of the hub is being
/// taken at a time, however many clients ask (see docs/http.md).
///
/// ```swift
/// let http = HTTPOutput(configuration: .init(address: ListenAddress("127.0.0.1:9266")!), hub: hub, log: log)
/// try await http.start()
/// …
/// await http.stop()
/// ```
public final class HTTPOutput: Sendable {
    /// What can be set (`http_*`); HTTP is off while ``listen`` is nil.
    public struct Settings: Equatable, Sendable {
        /// The address and port to serve on (`http_listen`); nil: no HTTP.
        public var listen: ListenAddress?
        /// Connections open at once (`http_max_connections`).
        public var maxConnections = 64

        /// The defaults: no HTTP.
        public init() {}
    }

    /// Where to listen and the server's bounds: the ``Settings`` (read through, as
    /// `configuration.maxConnections`) and what is fixed.
    @dynamicMemberLookup
    public struct Configuration: Sendable {
        /// The address and port.
        public var address: ListenAddress
        /// The settable part.
        public var settings = Settings()
        /// Seconds a connection may stay idle.
        public var idleTimeoutSeconds = 10
        /// Bytes one request's line and headers may take.
        public var maxRequestBytes = 16 * 1024
        /// Plot windows the page may be asked for (`?hours=`), in hours.
        public var hoursRange: ClosedRange<Double> = 0.1...8760

        /// The defaults, listening on `address`.
        public init(address: ListenAddress) {
            self.address = address
        }

        /// The configuration `settings` ask for; nil when they name no address (no HTTP).
        public init?(settings: Settings) {
            guard let address = settings.listen else { return nil }
            self.init(address: address)
            self.settings = settings
        }

        /// A setting, read or written through.
        public subscript<Value>(dynamicMember path: WritableKeyPath<Settings, Value>) -> Value {
            get { settings[keyPath: path] }
            set { settings[keyPath: path] = newValue }
        }
    }

    let configuration: Configuration
    private let hub: Hub
    private let log: Log
    let routes: Routes
    private let server: HTTPServer
    /// The hub listener's id while attached.
    let listener = Locked<Int?>(nil)

    /// Creates the output; nothing is served until ``start()``.
    ///
    /// - Parameter now: the clock for ages and staleness (tests pass their own).
    public init(
        configuration: Configuration, hub: Hub, log: Log, now: @escaping @Sendable () -> Timestamp = { .now() }
    ) {
        self.configuration = configuration
        self.hub = hub
        self.log = log
        let routes = Routes(hub: hub, hoursRange: configuration.hoursRange, now: now)
        self.routes = routes
        server = HTTPServer(
            limits: HTTPServer.Limits(
                connections: configuration.maxConnections, idleTimeoutSeconds: configuration.idleTimeoutSeconds,
                requestBytes: configuration.maxRequestBytes),
            log: log
        ) { request in await routes.respond(to: request) }
    }

    /// Starts receiving the hub's events, then listens; returns the port it listens on.
    @discardableResult
    public func start() async throws(SystemError) -> UInt16 {
        await attach(to: hub)
        return try await listen()
    }

    /// Listens on the configured address; on failure stops receiving the hub's events.
    func listen() async throws(SystemError) -> UInt16 {
        let (fd, port): (Int32, UInt16)
        do {
            (fd, port) = try configuration.address.listen()
            try server.start(listeningFD: fd)
        } catch {
            if let id = listener.withLock({ $0 }) { await hub.removeListener(id) }
            throw error
        }
        log.info("HTTP: serving http://\(configuration.address.withPort(port))/")
        if !configuration.address.isLoopback {
            log.warning(
                "HTTP: \(configuration.address) is reachable from other machines and the page, /metrics and /api "
                    + "have no authentication: put a reverse proxy with authentication in front (docs/http.md)")
        }
        return port
    }

    /// Stops listening and closes every connection (after the responses being made).
    public func stop() async {
        await server.stop()
        if let id = listener.withLock({ $0 }) { await hub.removeListener(id) }
    }
}
