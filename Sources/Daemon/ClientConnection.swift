import BlectlProtocol
import Glibc
import UnixSupport

/// One client of the socket server: reads request lines, answers them in order, queues
/// output without blocking, and closes itself on error, EOF or overload.
///
/// One watch on the server's event loop serves both directions; it is cancelled before
/// the descriptor is closed.
final class ClientConnection: @unchecked Sendable {
    // @unchecked Sendable: confined to the server's event loop like the server itself; it
    // is only captured by closures that run there.

    let id: Int
    private let fd: Int32
    private unowned let server: SocketServer
    private var watch: IOWatch?
    private var readStopped = false
    private var input: LineBuffer
    private var output = OutputQueue()
    /// A request is being answered; the next waits for it.
    private var busy = false
    private var inputEnded = false
    private var closingAfterFlush = false
    private(set) var closed = false
    /// The event types pushed to this client; nil until it subscribes.
    private var subscription: Set<EventType>?

    init(id: Int, fd: Int32, server: SocketServer) {
        self.id = id
        self.fd = fd
        self.server = server
        self.input = LineBuffer(maxLineLength: server.configuration.maxLineLength)
    }

    func start() {
        // Strong: the watch keeps the client alive until it is cancelled (in `close`).
        let watch = server.loop.watch(fd) { [self] events in
            if !events.isDisjoint(with: [.readable, .hangup, .error]), self.watch?.wantsRead == true {
                readAvailable()
            }
            if !events.isDisjoint(with: [.writable, .hangup, .error]), self.watch?.wantsWrite == true {
                flush()
            }
        }
        watch.wantsRead = true
        self.watch = watch
        // Writability is watched only while a write would block.
    }

    func wants(_ type: EventType) -> Bool {
        !closed && subscription?.contains(type) == true
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

    /// The client shut its sending side: answer what it sent, then close once done.
    ///
    /// Even a subscriber is closed then: a half-closed and a fully closed peer look the
    /// same from here, and a dead subscriber must not hold a client slot until the next
    /// event happens to fail on it.
    private func endInput() {
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
        subscription = types
        let result = SubscribeResult(events: types.sorted { $0.rawValue < $1.rawValue }, lastSeq: server.lastSeq)
        send(Response.subscribed(result).line(id: id))
    }

    private func answer(_ request: Request) {
        busy = true
        let handler = server.handler
        let loop = server.loop
        Task {
            // Encode here, off the event loop: a history page can be large.
            let reply = await handler.handle(request.command).line(id: request.id)
            loop.execute { [self] in finishRequest(reply) }
        }
    }

    private func finishRequest(_ reply: [UInt8]) {
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
            server.statistics.droppedSlow += 1
            server.log.warning(
                "client \(id) is not reading (over \(server.configuration.maxQueuedBytes) bytes queued); dropping it")
            close(reason: "output queue full")
            return false
        }
        output.append(bytes)
        return true
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
            case .transferred:
                continue
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

    /// Closes the connection now; queued output is discarded.
    func close(reason: String) {
        guard !closed else { return }
        closed = true
        server.remove(self, reason: reason)
        stopReading()
        watch?.cancel()
        watch = nil
        Glibc.close(fd)
        server.descriptorClosed()
    }
}
