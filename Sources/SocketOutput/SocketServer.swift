public import BlectlProtocol
public import Glibc
public import ConcurrencySupport
public import UnixSupport

/// The daemon's Unix socket: accepts clients, answers their requests, pushes events.
///
/// Everything runs on one event loop, driven by descriptor watches; nothing blocks or
/// polls. Each client has a bounded output queue: a client that does not read is dropped
/// once its queue exceeds ``Configuration/maxQueuedBytes``, so it cannot delay anyone else;
/// past ``Configuration/maxQueuedBytesTotal`` for all clients together, the one with the
/// most queued goes first. Requests from one client are answered one at a time, in order.
/// Each user (the peer's uid) may hold only so many clients and pending requests.
public final class SocketServer: @unchecked Sendable {
    // @unchecked Sendable: every mutable property is touched only on `loop` (the public
    // methods hop onto it; internal ones check that they run there).

    /// Bounds and the socket's place and permissions.
    ///
    /// Its settings (``settings``) are the `socket`, `socket_group` and client-limit keys.
    public struct Configuration: Equatable, Sendable {
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
        /// The most clients one user (the peer's uid, from `SO_PEERCRED`) may have at once;
        /// more are refused with `too_many_clients`. Root is no exception.
        public var maxClientsPerUser = 16
        /// The most requests of one user being answered at once, counting those whose
        /// client left while the work winds down; more get `too_many_requests`.
        public var maxPendingRequestsPerUser = 32
        /// The most bytes queued for all clients together; past it, the client with the
        /// most queued is dropped first.
        public var maxQueuedBytesTotal = 8 << 20
        /// How long a client being closed after an error may take to read it.
        public var closeGrace: Duration = .seconds(2)
        /// How long accepting pauses when the process runs out of descriptors.
        public var acceptBackoff: Duration = .milliseconds(250)

        /// The defaults for a socket at `path`.
        public init(path: String = ProtocolInfo.defaultSocketPath) {
            self.path = path
        }
    }

    /// Counters, for logs and tests.
    public struct Statistics: Equatable, Sendable {
        /// Clients connected now.
        public var clients = 0
        /// Requests whose work has not ended yet (their clients may have left).
        public var pendingRequests = 0
        /// Connections accepted and served.
        public var accepted = 0
        /// Connections refused because the server was full.
        public var refused = 0
        /// Connections refused because their user had its most clients connected.
        public var refusedForUser = 0
        /// Requests refused because their user had its most requests pending.
        public var refusedRequests = 0
        /// Requests cancelled because their client went away before the answer.
        public var cancelledRequests = 0
        /// Clients dropped because their output queue overflowed.
        public var droppedSlow = 0
        /// Of those, the clients dropped because all clients' queues together were full.
        public var droppedOverTotal = 0
        /// Clients closed for sending a line that was too long.
        public var closedForLongLines = 0
        /// Lines answered with an error because they were not valid requests.
        public var badRequests = 0
    }

    let configuration: Configuration
    let handler: any RequestHandling
    let log: Log
    let loop: EventLoop
    /// The listening socket systemd passed (socket activation), which ``open()`` serves on
    /// instead of making one at the configured path.
    let inheritedListener: Int32?

    private var listenFD: Int32 = -1
    private var listenWatch: IOWatch?
    private var ownsSocketFile = false
    private var clients: [Int: ClientConnection] = [:]
    private var nextClientID = 0
    private var refusing = false
    private var quotas: UserQuotas
    /// Bytes queued for all clients together.
    private(set) var queuedBytes = 0
    /// Returns freed memory to the kernel a moment after clients holding much of it left.
    private var heapTrim: LoopTimer?
    private var openDescriptors = 0
    private var stopping = false
    private var stopWaiters: [CheckedContinuation<Void, Never>] = []
    /// Events broadcast and not yet delivered, in `seq` order (a lock: the hub adds them
    /// from its own executor).
    private let pendingEvents = Locked<[Event]>([])
    /// Buffers a delivery reuses (the loop's thread only): the batch swapped out of
    /// `pendingEvents`, and the clients it wrote to. Kept (unless a backlog grew them), so
    /// a delivery allocates nothing.
    private var deliveringEvents: [Event] = []
    private var clientsToFlush: [ClientConnection] = []
    var statistics = Statistics()
    /// The longest reply a request gets, where it can be cut (a `history` page): half what
    /// may be queued for a client, so events pushed to a subscriber meanwhile fit beside it.
    var replyBytesLimit: Int { min(configuration.maxQueuedBytes, configuration.maxQueuedBytesTotal) / 2 }
    /// The highest `seq` broadcast so far; `subscribe` replies with it.
    private(set) var lastSeq: UInt64 = 0
    /// One receive buffer shared by all clients: reads happen one at a time on `loop`.
    let receiveBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 1)

    /// Creates a server; nothing happens until ``start(inheriting:)``.
    ///
    /// - Parameters:
    ///   - eventLoop: the loop the server runs on (blectld passes the hub's, so events are
    ///     written without a thread hop); by default a loop of its own.
    ///   - inheritedListener: a listening socket systemd passed, for ``open()``.
    public init(
        configuration: Configuration, handler: any RequestHandling, log: Log, eventLoop: EventLoop? = nil,
        inheritedListener: Int32? = nil
    ) {
        self.loop = eventLoop ?? EventLoop(label: "blectl-socket")
        self.inheritedListener = inheritedListener
        self.configuration = configuration
        self.quotas = UserQuotas(
            maxClients: configuration.maxClientsPerUser, maxPendingRequests: configuration.maxPendingRequestsPerUser)
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
                heapTrim?.cancel()
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
        // A batch that piled up while the loop was busy is not kept for the next.
        deliveringEvents.removeAll(keepingCapacity: deliveringEvents.capacity <= 1024)
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
            refuseFull(fd)
            return
        }
        let peer: PeerCredentials
        do {
            peer = try UnixSocket.peerCredentials(fd)
        } catch {
            log.warning("refusing a client: \(error)")
            Glibc.close(fd)
            return
        }
        let decision = quotas.addClient(peer.uid)
        guard decision == .granted else {
            refuseForUser(fd, uid: peer.uid, warn: decision == .refused)
            return
        }
        refusing = false
        nextClientID += 1
        statistics.accepted += 1
        openDescriptors += 1
        let client = ClientConnection(id: nextClientID, fd: fd, uid: peer.uid, server: self)
        clients[client.id] = client
        log.debug("client \(client.id) (pid \(peer.pid), uid \(peer.uid)) connected (\(clients.count) now)")
        client.start()
        client.send((try? JSONLines.encode(Hello())) ?? [])
    }

    private func refuseFull(_ fd: Int32) {
        statistics.refused += 1
        if !refusing {
            refusing = true
            log.warning("refusing clients: \(configuration.maxClients) are connected (max_clients)")
        }
        refuse(fd, ErrorInfo(.tooManyClients, "the daemon serves \(configuration.maxClients) clients already"))
    }

    private func refuseForUser(_ fd: Int32, uid: uid_t, warn: Bool) {
        statistics.refusedForUser += 1
        let limit = configuration.maxClientsPerUser
        if warn { log.warning("refusing clients of uid \(uid): it has \(limit) connected (max_clients_per_user)") }
        refuse(fd, ErrorInfo(.tooManyClients, "uid \(uid) has \(limit) clients connected already"))
    }

    private func refuse(_ fd: Int32, _ error: ErrorInfo) {
        // Best effort: the socket is new and its buffer empty, so one small send fits.
        Response.failure(error).line(id: nil).withUnsafeBytes { _ = UnixSocket.send(fd, $0) }
        Glibc.close(fd)
    }

    // MARK: - Client bookkeeping (called by ClientConnection on the loop)

    func remove(_ client: ClientConnection, reason: String) {
        precondition(loop.isCurrent)
        clients[client.id] = nil
        quotas.removeClient(client.uid)
        log.debug("client \(client.id) closed: \(reason)")
    }

    /// Takes a request slot of `client`'s user; false (and a warning, once per flood) when
    /// the user has its most requests pending.
    func beginRequest(for client: ClientConnection) -> Bool {
        precondition(loop.isCurrent)
        let decision = quotas.beginRequest(client.uid)
        guard decision == .granted else {
            statistics.refusedRequests += 1
            if decision == .refused {
                log.warning(
                    "refusing requests of uid \(client.uid): \(configuration.maxPendingRequestsPerUser) are "
                        + "being answered (max_pending_requests_per_user)")
            }
            return false
        }
        statistics.pendingRequests += 1
        return true
    }

    /// Gives back the request slot of `client`'s user when the request's work has ended.
    func endRequest(for client: ClientConnection) {
        precondition(loop.isCurrent)
        quotas.endRequest(client.uid)
        statistics.pendingRequests -= 1
    }

    // MARK: - The bound on all clients' output

    /// Counts `count` more bytes queued for `client`, first dropping the clients with the
    /// most output queued — the slowest readers, possibly `client` — while all queues
    /// together would exceed the bound. Returns false when `client` was dropped.
    func reserveOutput(_ count: Int, for client: ClientConnection) -> Bool {
        precondition(loop.isCurrent)
        while queuedBytes + count > configuration.maxQueuedBytesTotal {
            // `client`'s queue is counted with the bytes it is about to take.
            let queued = { (other: ClientConnection) in other.queuedByteCount + (other === client ? count : 0) }
            guard let slowest = clients.values.max(by: { queued($0) < queued($1) }) else { break }
            statistics.droppedOverTotal += 1
            slowest.dropAsSlow(
                "it has the most output queued (\(queued(slowest)) bytes) and all clients together reached "
                    + "\(configuration.maxQueuedBytesTotal) (max_queued_bytes_total)")
            if slowest === client { return false }
        }
        queuedBytes += count
        return true
    }

    /// Counts `count` queued bytes as written or discarded.
    func releaseOutput(_ count: Int) {
        queuedBytes -= count
    }

    /// Gives freed memory back to the kernel once clients that held much of it are gone:
    /// one `malloc_trim` a second after the last close of a client with a large buffer,
    /// never one per event. glibc returns most of such memory by itself (large blocks are
    /// mapped apart, and the top of a heap shrinks); this takes the free pages left in
    /// the middle of a heap (0.02-0.6 MB after 1-63 dropped subscribers, measured in
    /// docs/protocol.md), for 0.1-0.2 ms.
    func noteClientReleasedMemory(large: Bool) {
        precondition(loop.isCurrent)
        guard large, !stopping else { return }
        heapTrim?.cancel()
        heapTrim = loop.schedule(after: .seconds(1)) { [weak self] in
            self?.heapTrim = nil
            HeapTrim.releaseFreeMemory()
        }
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
