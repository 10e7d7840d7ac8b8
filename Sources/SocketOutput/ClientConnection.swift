import BlectlProtocol
import Glibc
import ConcurrencySupport
import UnixSupport

/// One client of the socket server: reads request lines, answers them in order, queues
/// output without blocking, and closes itself on error, EOF or overload.
///
/// One watch on the server's event loop serves both directions and hang-ups; it is
/// cancelled before the descriptor is closed.
///
/// A client that can no longer read is closed at once, its pending request cancelled;
/// one that only stopped writing is answered first. The two look alike to `recv` (both
/// end the input), not to epoll: the peer's `shutdown(SHUT_WR)` only ends this socket's
/// input (`EPOLLIN`/`EPOLLRDHUP`), while its `close` (or `shutdown(SHUT_RD)`) ends both
/// directions, which epoll reports as `EPOLLHUP` — with `EPOLLERR` (`ECONNRESET`) too
/// when it left data unread. So a hang-up or an error means nobody will read a reply;
/// an end of input alone means a client like `nc -N` still waits for one. The watch keeps
/// listening for hang-ups after the input ended, so a client that half-closes and then
/// goes away is noticed as well.
final class ClientConnection: @unchecked Sendable {
    // @unchecked Sendable: confined to the server's event loop like the server itself; it
    // is only captured by closures that run there.

    let id: Int
    /// The connecting process's user, for the per-user limits.
    let uid: uid_t
    private let fd: Int32
    private unowned let server: SocketServer
    private var watch: IOWatch?
    private var readStopped = false
    private var input: LineBuffer
    private var output = OutputQueue()
    /// A request is being answered; the next waits for it.
    private var busy = false
    /// The work answering it; cancelled when the client goes away.
    private var request: Task<Void, Never>?
    private var inputEnded = false
    private var closingAfterFlush = false
    private(set) var closed = false
    /// The event types pushed to this client, a bit each (``bit(_:)``); none until it subscribes.
    private var subscription: UInt8 = 0

    init(id: Int, fd: Int32, uid: uid_t, server: SocketServer) {
        self.id = id
        self.uid = uid
        self.fd = fd
        self.server = server
        self.input = LineBuffer(maxLineLength: server.configuration.maxLineLength)
    }

    func start() {
        // Strong: the watch keeps the client alive until it is cancelled (in `close`).
        let watch = server.loop.watch(fd) { [self] events in handle(events) }
        // Writability is watched only while a write would block; hang-ups always.
        watch.interest = [.readable, .hangup]
        self.watch = watch
    }

    private func handle(_ events: IOEvents) {
        if !events.isDisjoint(with: [.hangup, .error]) {
            return close(reason: "the client went away")
        }
        if events.contains(.readable), watch?.wantsRead == true { readAvailable() }
        if events.contains(.writable), watch?.wantsWrite == true { flush() }
    }

    func wants(_ type: EventType) -> Bool {
        !closed && subscription & Self.bit(type) != 0
    }

    /// The bit of `type` in ``subscription``: asked for every event and every client, where a
    /// `Set` hashed the type's wire name (about 300 instructions, callgrind 2026-12-05).
    private static func bit(_ type: EventType) -> UInt8 {
        switch type {
        case .reading: 1 << 0
        case .readingError: 1 << 1
        case .peripheralSeen: 1 << 2
        case .peripheralLost: 1 << 3
        case .connected: 1 << 4
        case .disconnected: 1 << 5
        case .adapterState: 1 << 6
        }
    }

    // MARK: - Input

    private func readAvailable() {
        guard !closed, !readStopped else { return }
        switch UnixSocket.receive(fd, into: server.receiveBuffer) {
        case .transferred(let count):
            input.append(UnsafeRawBufferPointer(rebasing: server.receiveBuffer[..<count]))
            processInput()
        case .wouldBlock:
            return
        case .endOfFile:
            endInput()
        case .failed(let error):
            close(reason: "read failed: \(error.reason)")
        }
    }

    /// The client shut its sending side only (a hang-up would have closed it already):
    /// answer what it sent, then close once done — even a subscriber, as the protocol
    /// says: one that wants events keeps its sending side open.
    private func endInput() {
        server.log.debug("client \(id) finished sending")
        inputEnded = true
        stopReading()
        input.finish()
        processInput()
        closeIfFinished()
    }

    private func processInput() {
        while !busy && !closed && !closingAfterFlush {
            switch input.next() {
            case .line(let line):
                handle(line)
            case .incomplete:
                applyBackpressure()
                return
            case .tooLong:
                rejectLongLine()
                return
            }
        }
        applyBackpressure()
    }

    /// Stops reading while a request is being answered and a full line's worth of input
    /// is already waiting; resumes when it is not. This bounds buffered input.
    private func applyBackpressure() {
        guard !readStopped else { return }
        watch?.wantsRead = !(busy && input.bufferedCount >= server.configuration.maxLineLength)
    }

    private func handle(_ line: [UInt8]) {
        if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }) { return }
        switch Request.parse(line) {
        case .failure(let error):
            server.statistics.badRequests += 1
            send(Response.failure(error.error).line(id: error.id))
        case .success(let request):
            if case .subscribe(let types) = request.command {
                subscribe(to: types ?? Set(EventType.allCases), id: request.id)
            } else {
                answer(request)
            }
        }
    }

    /// Subscribing is the connection's business: from this point on the queue order
    /// guarantees every event after `lastSeq` follows the reply.
    private func subscribe(to types: Set<EventType>, id: Int?) {
        subscription = types.reduce(0) { $0 | Self.bit($1) }
        let result = SubscribeResult(events: types.sorted { $0.rawValue < $1.rawValue }, lastSeq: server.lastSeq)
        send(Response.subscribed(result).line(id: id))
    }

    private func answer(_ request: Request) {
        guard server.beginRequest(for: self) else {
            let limit = server.configuration.maxPendingRequestsPerUser
            let error = ErrorInfo(
                .tooManyRequests, "uid \(uid) has \(limit) requests being answered already; retry when one ends")
            return send(Response.failure(error).line(id: request.id))
        }
        busy = true
        // The task holds the server until it has given the request's slot back, even if
        // the server was stopped and let go meanwhile.
        let server = self.server
        self.request = Task {
            let response = await server.handler.handle(request.command)
            // Encode here, off the event loop (a history page can be large); not at all
            // for a client that went away.
            // At most half the client's queue, so that events pushed meanwhile fit beside it.
            let reply = Task.isCancelled ? [] : response.line(id: request.id, maxBytes: server.replyBytesLimit)
            server.loop.execute { [self] in withExtendedLifetime(server) { finishRequest(reply) } }
        }
    }

    /// The request's work ended: its user's slot is free again, and the reply goes out
    /// if the client is still there.
    private func finishRequest(_ reply: [UInt8]) {
        request = nil
        server.endRequest(for: self)
        guard !closed else { return }
        busy = false
        send(reply)
        processInput()
        closeIfFinished()
    }

    private func rejectLongLine() {
        server.statistics.closedForLongLines += 1
        server.log.notice("client \(id) sent a line over \(server.configuration.maxLineLength) bytes; closing")
        stopReading()
        input.reset()
        let error = ErrorInfo(.lineTooLong, "lines are limited to \(server.configuration.maxLineLength) bytes")
        send(Response.failure(error).line(id: nil))
        closeAfterFlush()
    }

    // MARK: - Output

    /// Queues `bytes` and writes what the socket takes now; drops the client if its queue
    /// would exceed the bound.
    func send(_ bytes: [UInt8]) {
        if enqueue(bytes) { flush() }
    }

    /// Queues `bytes` without writing (call ``flush()`` after a batch); drops the client
    /// if its queue would exceed the bound. Returns whether the client is still open.
    @discardableResult
    func enqueue(_ bytes: [UInt8]) -> Bool {
        guard !closed else { return false }
        if output.byteCount + bytes.count > server.configuration.maxQueuedBytes {
            dropAsSlow("over \(server.configuration.maxQueuedBytes) bytes queued")
            return false
        }
        guard server.reserveOutput(bytes.count, for: self) else { return false }
        output.append(bytes)
        return true
    }

    /// Bytes queued and not yet written.
    var queuedByteCount: Int { output.byteCount }

    /// Drops the client for not reading its output; `why` says how much it left.
    func dropAsSlow(_ why: String) {
        server.statistics.droppedSlow += 1
        server.log.warning("client \(id) is not reading (\(why)); dropping it")
        close(reason: "output queue full")
    }

    /// Writes what the socket takes now; the rest when it becomes writable.
    func flush() {
        guard !closed else { return }
        while !output.isEmpty {
            var outcome = IOResult.wouldBlock
            output.writeFront { buffer in
                outcome = UnixSocket.send(fd, buffer)
                if case .transferred(let count) = outcome { return count }
                return 0
            }
            switch outcome {
            case .transferred(let count):
                server.releaseOutput(count)
            case .wouldBlock:
                setWriteArmed(true)
                return
            case .endOfFile, .failed:
                close(reason: "the client went away")
                return
            }
        }
        setWriteArmed(false)
        if closingAfterFlush {
            close(reason: "closed after an error")
        } else {
            closeIfFinished()
        }
    }

    private func setWriteArmed(_ armed: Bool) {
        watch?.wantsWrite = armed
    }

    // MARK: - Closing

    private func closeIfFinished() {
        if inputEnded && !busy && output.isEmpty && input.bufferedCount == 0 {
            close(reason: "the client finished")
        }
    }

    /// Closes once the queued output is written, or after the grace period at the latest.
    private func closeAfterFlush() {
        closingAfterFlush = true
        let grace = server.configuration.closeGrace
        server.loop.schedule(after: grace) { [self] in
            close(reason: "did not read its last reply in time")
        }
        if output.isEmpty { close(reason: "closed after an error") }
    }

    private func stopReading() {
        readStopped = true
        watch?.wantsRead = false
    }

    /// Closes the connection now; queued output is discarded, a pending request cancelled
    /// (its work ends at the next point where it waits).
    func close(reason: String) {
        guard !closed else { return }
        closed = true
        if let request {
            request.cancel()
            server.statistics.cancelledRequests += 1
        }
        server.remove(self, reason: reason)
        stopReading()
        watch?.cancel()
        watch = nil
        Glibc.close(fd)
        releaseBuffers()
        server.descriptorClosed()
    }

    /// Frees the buffers now rather than when the last reference goes (a cancelled
    /// request's task holds one until it ends).
    private func releaseBuffers() {
        let large = output.byteCount >= Self.largeBuffer || input.bufferedCount >= Self.largeBuffer
        server.releaseOutput(output.byteCount)
        output = OutputQueue()
        input.reset()
        server.noteClientReleasedMemory(large: large)
    }

    /// A buffer this large is worth giving back to the kernel once freed.
    private static let largeBuffer = 64 * 1024
}
