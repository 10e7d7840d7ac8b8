public import BlectlProtocol
public import Glibc
import Central
public import UnixSupport

/// The daemon's Unix socket: accepts clients, answers their requests, pushes events.
///
/// Everything runs on one event loop, driven by descriptor watches; nothing blocks or
/// polls. Each client has a bounded output queue: a client that does not read is dropped
/// once its queue exceeds ``Configuration/maxQueuedBytes``, so it cannot delay anyone else.
/// Requests from one client are answered one at a time, in order.
public final class SocketServer: @unchecked Sendable {
    // @unchecked Sendable: every mutable property is touched only on `loop` (the public
    // methods hop onto it; internal ones check that they run there).

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
    let loop: EventLoop

    private var listenFD: Int32 = -1
    private var listenWatch: IOWatch?
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
    /// Buffers a delivery reuses (the loop's thread only): the batch swapped out of
    /// `pendingEvents`, and the clients it wrote to. Kept, so a delivery allocates nothing.
    private var deliveringEvents: [Event] = []
    private var clientsToFlush: [ClientConnection] = []
    var statistics = Statistics()
    /// The highest `seq` broadcast so far; `subscribe` replies with it.
    private(set) var lastSeq: UInt64 = 0
    /// One receive buffer shared by all clients: reads happen one at a time on `loop`.
    let receiveBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)

    /// Creates a server; nothing happens until ``start(inheriting:)``.
    ///
    /// - Parameter eventLoop: the loop the server runs on (blectld passes the hub's, so
    ///   events are written without a thread hop); by default a loop of its own.
    public init(configuration: Configuration, handler: any RequestHandling, log: Log, eventLoop: EventLoop? = nil) {
        self.loop = eventLoop ?? EventLoop(label: "blectl-socket")
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
        let result: Result<Void, SystemError> = loop.sync {
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
        precondition(listenWatch == nil && !stopping, "start() is called once")
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
        let watch = loop.watch(listenFD) { [weak self] _ in self?.acceptPending() }
        watch.wantsRead = true
        listenWatch = watch
        log.info("listening on \(configuration.path)" + (fd == nil ? "" : " (socket activation)"))
    }

    /// Stops accepting, closes every client and the socket (removing the socket file it
    /// created), and returns when every descriptor is closed.
    public func stop() async {
        await withCheckedContinuation { continuation in
            loop.execute { [self] in
                stopping = true
                stopWaiters.append(continuation)
                if let listenWatch {
                    listenWatch.cancel()
                    self.listenWatch = nil
                    Glibc.close(listenFD)
                    if ownsSocketFile { unlink(configuration.path) }
                    descriptorClosed()
                }
                for client in clients.values { client.close(reason: "the daemon is stopping") }
                resumeStopWaitersIfDone()
            }
        }
    }

    /// Pushes `event` to every client subscribed to its type.
    ///
    /// Call in `seq` order (the hub does): events are queued in the order of the calls.
    /// Events that arrive while the loop is busy are delivered together, with one write
    /// per client.
    public func broadcast(_ event: Event) {
        let first = pendingEvents.withLock { pending in
            pending.append(event)
            return pending.count == 1
        }
        if first { loop.execute { [self] in deliverPendingEvents() } }
    }

    private func deliverPendingEvents() {
        precondition(loop.isCurrent)
        pendingEvents.withLock { swap(&$0, &deliveringEvents) }
        for event in deliveringEvents {
            if let seq = event.seq { lastSeq = max(lastSeq, seq) }
            deliver(event)
        }
        deliveringEvents.removeAll(keepingCapacity: true)
        for client in clientsToFlush { client.flush() }
        clientsToFlush.removeAll(keepingCapacity: true)
    }

    /// Queues `event` for its subscribers, encoded once if anyone wants it.
    private func deliver(_ event: Event) {
        var line: [UInt8]?
        for client in clients.values where client.wants(event.type) {
            if line == nil {
                line = try? event.jsonLine()
                guard line != nil else { return log.error("could not encode a \(event.type.rawValue) event") }
            }
            guard let line, client.enqueue(line) else { continue }
            if !clientsToFlush.contains(where: { $0 === client }) { clientsToFlush.append(client) }
        }
    }

    /// Raises the `seq` that `subscribe` reports to at least `seq`; call with the hub's
    /// current value when connecting a hub that already assigned some.
    public func noteSequence(_ seq: UInt64) {
        loop.execute { [self] in lastSeq = max(lastSeq, seq) }
    }

    /// The counters now.
    public func currentStatistics() async -> Statistics {
        await withCheckedContinuation { continuation in
            loop.execute { [self] in
                var snapshot = statistics
                snapshot.clients = clients.count
                continuation.resume(returning: snapshot)
            }
        }
    }

    // MARK: - Accepting

    private func acceptPending() {
        precondition(loop.isCurrent)
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
    /// readable, and the watch would otherwise fire in a tight loop.
    private func pauseAccepting() {
        guard let listenWatch, listenWatch.wantsRead else { return }
        listenWatch.wantsRead = false
        loop.schedule(after: configuration.acceptBackoff) { [self] in
            guard !stopping, let listenWatch = self.listenWatch else { return }
            listenWatch.wantsRead = true
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

    // MARK: - Client bookkeeping (called by ClientConnection on the loop)

    func remove(_ client: ClientConnection, reason: String) {
        precondition(loop.isCurrent)
        clients[client.id] = nil
        log.debug("client \(client.id) closed: \(reason)")
    }

    func descriptorClosed() {
        precondition(loop.isCurrent)
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
