public import BlectlProtocol
public import Dispatch
public import Glibc
import Central
public import UnixSupport

/// The daemon's Unix socket: accepts clients, answers their requests, pushes events.
///
/// Everything runs on one serial queue, driven by dispatch sources; nothing blocks or
/// polls. Each client has a bounded output queue: a client that does not read is dropped
/// once its queue exceeds ``Configuration/maxQueuedBytes``, so it cannot delay anyone else.
/// Requests from one client are answered one at a time, in order.
public final class SocketServer: @unchecked Sendable {
    // @unchecked Sendable: every mutable property is touched only on `queue` (the public
    // methods hop onto it; internal ones check with dispatchPrecondition).

    /// Bounds and the socket's place and permissions.
    public struct Configuration: Sendable {
        /// The socket path (or `@name` for an abstract socket).
        public var path: String
        /// The group owning the socket file, if any.
        public var group: String?
        /// The socket file's mode.
        public var mode: mode_t = 0o660
        /// The most clients served at once; more are refused with `too_many_clients`.
        public var maxClients = 64
        /// The longest request line; a longer one gets `line_too_long` and the connection is closed.
        public var maxLineLength = 64 * 1024
        /// The most bytes queued for one client before it is dropped.
        public var maxQueuedBytes = 1 << 20
        /// How long a client being closed after an error may take to read it.
        public var closeGrace: Duration = .seconds(2)
        /// How long accepting pauses when the process runs out of descriptors.
        public var acceptBackoff: Duration = .milliseconds(250)

        /// The defaults for a socket at `path`.
        public init(path: String) {
            self.path = path
        }

        /// The configured socket, group and limits.
        public init(configuration: DaemonConfiguration) {
            path = configuration.socketPath
            group = configuration.socketGroup
            maxClients = configuration.maxClients
            maxLineLength = configuration.maxLineLength
            maxQueuedBytes = configuration.clientQueueBytes
        }
    }

    /// Counters, for logs and tests.
    public struct Statistics: Equatable, Sendable {
        /// Clients connected now.
        public var clients = 0
        /// Connections accepted and served.
        public var accepted = 0
        /// Connections refused because the server was full.
        public var refused = 0
        /// Clients dropped because their output queue overflowed.
        public var droppedSlow = 0
        /// Clients closed for sending a line that was too long.
        public var closedForLongLines = 0
        /// Lines answered with an error because they were not valid requests.
        public var badRequests = 0
    }

    let configuration: Configuration
    let handler: any RequestHandling
    let log: Log
    let queue: DispatchQueue

    private var listenFD: Int32 = -1
    private var listenSource: (any DispatchSourceRead)?
    private var listenPaused = false
    private var ownsSocketFile = false
    private var clients: [Int: ClientConnection] = [:]
    private var nextClientID = 0
    private var refusing = false
    private var openDescriptors = 0
    private var stopping = false
    private var stopWaiters: [CheckedContinuation<Void, Never>] = []
    /// Events broadcast and not yet delivered, in `seq` order (a lock: the hub adds them
    /// from its own executor).
    private let pendingEvents = Locked<[Event]>([])
    var statistics = Statistics()
    /// The highest `seq` broadcast so far; `subscribe` replies with it.
    private(set) var lastSeq: UInt64 = 0
    /// One receive buffer shared by all clients: reads happen one at a time on `queue`.
    let receiveBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)

    /// Creates a server; nothing happens until ``start(inheriting:)``.
    ///
    /// - Parameter target: a queue for the server's own queue to run on (blectld passes
    ///   the hub's, so events are written without a thread hop); never one that calls
    ///   ``start(inheriting:)``, which waits for the server's queue.
    public init(configuration: Configuration, handler: any RequestHandling, log: Log, target: DispatchQueue? = nil) {
        self.queue = DispatchQueue(label: "blectl.socket-server", target: target)
        self.configuration = configuration
        self.handler = handler
        self.log = log
    }

    deinit {
        receiveBuffer.deallocate()
    }

    /// Starts listening: on `fd` when systemd passed one (socket activation), otherwise
    /// on a new socket at the configured path.
    public func start(inheriting fd: Int32? = nil) throws(SystemError) {
        let result: Result<Void, SystemError> = queue.sync {
            do throws(SystemError) {
                try openListener(inheriting: fd)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        try result.get()
    }

    private func openListener(inheriting fd: Int32?) throws(SystemError) {
        precondition(listenSource == nil && !stopping, "start() is called once")
        if let fd {
            guard UnixSocket.isListeningStreamSocket(fd) else {
                throw SystemError("socket activation: fd \(fd) is not a listening Unix stream socket", code: EINVAL)
            }
            try UnixSocket.setNonBlocking(fd)
            listenFD = fd
        } else {
            let group = try configuration.group.map { name throws(SystemError) in try UnixSocket.groupID(named: name) }
            listenFD = try UnixSocket.listen(path: configuration.path, mode: configuration.mode, groupID: group)
            ownsSocketFile = !configuration.path.hasPrefix("@")
        }
        openDescriptors += 1
        let source = DispatchSource.makeReadSource(fileDescriptor: listenFD, queue: queue)
        source.setEventHandler { [unowned self] in acceptPending() }
        source.setCancelHandler { [self, listenFD, ownsSocketFile] in
            Glibc.close(listenFD)
            if ownsSocketFile { unlink(configuration.path) }
            descriptorClosed()
        }
        listenSource = source
        source.resume()
        log.info("listening on \(configuration.path)" + (fd == nil ? "" : " (socket activation)"))
    }

    /// Stops accepting, closes every client and the socket (removing the socket file it
    /// created), and returns when every descriptor is closed.
    public func stop() async {
        await withCheckedContinuation { continuation in
            queue.async { [self] in
                stopping = true
                stopWaiters.append(continuation)
                if let listenSource {
                    listenSource.cancel()
                    if listenPaused { listenSource.resume() }
                    self.listenSource = nil
                }
                for client in clients.values { client.close(reason: "the daemon is stopping") }
                resumeStopWaitersIfDone()
            }
        }
    }

    /// Pushes `event` to every client subscribed to its type.
    ///
    /// Call in `seq` order (the hub does): events are queued in the order of the calls.
    /// Events that arrive while the queue is busy are delivered together, with one write
    /// per client.
    public func broadcast(_ event: Event) {
        let first = pendingEvents.withLock { pending in
            pending.append(event)
            return pending.count == 1
        }
        if first { queue.async { [self] in deliverPendingEvents() } }
    }

    private func deliverPendingEvents() {
        dispatchPrecondition(condition: .onQueue(queue))
        let events = pendingEvents.withLock { pending in
            defer { pending.removeAll(keepingCapacity: true) }
            return pending
        }
        var written: [Int: ClientConnection] = [:]
        for event in events {
            if let seq = event.seq { lastSeq = max(lastSeq, seq) }
            let subscribers = clients.values.filter { $0.wants(event.type) }
            guard !subscribers.isEmpty else { continue }
            guard let line = try? event.jsonLine() else {
                log.error("could not encode a \(event.type.rawValue) event")
                continue
            }
            for client in subscribers where client.enqueue(line) { written[client.id] = client }
        }
        for client in written.values { client.flush() }
    }

    /// Raises the `seq` that `subscribe` reports to at least `seq`; call with the hub's
    /// current value when connecting a hub that already assigned some.
    public func noteSequence(_ seq: UInt64) {
        queue.async { [self] in lastSeq = max(lastSeq, seq) }
    }

    /// The counters now.
    public func currentStatistics() async -> Statistics {
        await withCheckedContinuation { continuation in
            queue.async { [self] in
                var snapshot = statistics
                snapshot.clients = clients.count
                continuation.resume(returning: snapshot)
            }
        }
    }

    // MARK: - Accepting

    private func acceptPending() {
        dispatchPrecondition(condition: .onQueue(queue))
        // A bounded batch per event keeps one burst of connections from starving clients.
        for _ in 0..<64 {
            switch UnixSocket.accept(listenFD) {
            case .accepted(let fd):
                admit(fd)
            case .noneWaiting:
                return
            case .failed(let error):
                log.warning("accept failed: \(error)")
                pauseAccepting()
                return
            }
        }
    }

    /// Stops accepting for a moment: with no descriptors left the listening socket stays
    /// readable, and the source would otherwise fire in a tight loop.
    private func pauseAccepting() {
        guard let listenSource, !listenPaused else { return }
        listenPaused = true
        listenSource.suspend()
        queue.asyncAfter(deadline: .now() + .milliseconds(Int(configuration.acceptBackoff.seconds * 1000))) {
            [self] in
            guard listenPaused, !stopping, let listenSource = self.listenSource else { return }
            listenPaused = false
            listenSource.resume()
        }
    }

    private func admit(_ fd: Int32) {
        guard !stopping else {
            Glibc.close(fd)
            return
        }
        guard clients.count < configuration.maxClients else {
            refuse(fd)
            return
        }
        refusing = false
        nextClientID += 1
        statistics.accepted += 1
        openDescriptors += 1
        let client = ClientConnection(id: nextClientID, fd: fd, server: self)
        clients[client.id] = client
        log.debug("client \(client.id) connected (\(clients.count) now)")
        client.start()
        client.send((try? JSONLines.encode(Hello())) ?? [])
    }

    private func refuse(_ fd: Int32) {
        statistics.refused += 1
        if !refusing {
            refusing = true
            log.warning("refusing clients: \(configuration.maxClients) are connected (max_clients)")
        }
        let error = ErrorInfo(.tooManyClients, "the daemon serves \(configuration.maxClients) clients already")
        // Best effort: the socket is new and its buffer empty, so one small send fits.
        Response.failure(error).line(id: nil).withUnsafeBytes { _ = UnixSocket.send(fd, $0) }
        Glibc.close(fd)
    }

    // MARK: - Client bookkeeping (called by ClientConnection on the queue)

    func remove(_ client: ClientConnection, reason: String) {
        dispatchPrecondition(condition: .onQueue(queue))
        clients[client.id] = nil
        log.debug("client \(client.id) closed: \(reason)")
    }

    func descriptorClosed() {
        dispatchPrecondition(condition: .onQueue(queue))
        openDescriptors -= 1
        resumeStopWaitersIfDone()
    }

    private func resumeStopWaitersIfDone() {
        guard stopping, openDescriptors == 0 else { return }
        let waiters = stopWaiters
        stopWaiters = []
        for waiter in waiters { waiter.resume() }
    }
}
