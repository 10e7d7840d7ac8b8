import CMicroHTTPD
import Glibc
import ConcurrencySupport
import UnixSupport

/// An HTTP/1.1 server on libmicrohttpd that answers GET and HEAD with a responder.
///
/// libmicrohttpd parses requests and writes responses on a thread of its own (one epoll
/// thread for every connection); the responder runs as a Swift task, so a request never
/// waits on the thread that carries notifications, and the HTTP thread never waits on the
/// responder: the connection is suspended while its answer is being made and resumed
/// when it is ready. (Measured against a thread per connection and against polling
/// libmicrohttpd from the hub's event loop: docs/http.md.) Connections, idle time and
/// request size are bounded (``Limits``); a request with a body is refused by closing the
/// connection.
final class HTTPServer: @unchecked Sendable {
    // @unchecked Sendable: `daemon` and `retained` are written by `start` before
    // libmicrohttpd runs any callback and by `stop` after it ran its last; the bookkeeping
    // the callbacks and tasks share is behind `state`'s lock.

    /// The bounds of what clients can make the server hold (their defaults are
    /// ``HTTPOutput/Configuration``'s).
    struct Limits: Sendable {
        /// Connections open at once; more wait in the listening socket's backlog until one ends.
        var connections: Int
        /// Seconds a connection may stay idle (between or inside requests) before it is closed.
        var idleTimeoutSeconds: Int
        /// The memory one connection may use for its request (line and headers): a larger
        /// request is answered 414 or 431 and closed.
        var requestBytes: Int
    }

    typealias Responder = @Sendable (HTTPRequest) async -> HTTPResponse

    private struct State {
        var working = 0
        var stopping = false
        var open = 0
        var full = false
        var drained: CheckedContinuation<Void, Never>?
    }

    let limits: Limits
    private let log: Log
    private let respond: Responder
    private let state = Locked(State())
    private var daemon: OpaquePointer?
    private var retained: Unmanaged<HTTPServer>?

    init(limits: Limits, log: Log, respond: @escaping Responder) {
        self.limits = limits
        self.log = log
        self.respond = respond
    }

    /// Serves on `listeningFD` (which the server then owns and closes at ``stop()``).
    func start(listeningFD: Int32) throws(SystemError) {
        precondition(daemon == nil, "start() is called once")
        if let failure = cmhd_load() {
            close(listeningFD)
            throw SystemError(
                "loading libmicrohttpd (apt-get install libmicrohttpd12): \(String(cString: failure))", code: ELIBACC)
        }
        let retained = Unmanaged.passRetained(self)
        var settings = cmhd_settings(
            flags: MHD_USE_EPOLL_INTERNAL_THREAD.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
                | MHD_USE_ERROR_LOG.rawValue, listen_fd: listeningFD, handler: accessHandler,
            completed: requestCompleted,
            notify_connection: connectionNotice, logger: libraryLog, context: retained.toOpaque(),
            connection_limit: UInt32(limits.connections), connection_timeout_seconds: UInt32(limits.idleTimeoutSeconds),
            connection_memory_limit: limits.requestBytes)
        guard let daemon = cmhd_start(&settings) else {
            retained.release()
            close(listeningFD)
            throw SystemError("starting libmicrohttpd", code: errno == 0 ? EINVAL : errno)
        }
        self.daemon = daemon
        self.retained = retained
    }

    /// Refuses new requests, waits for the responses being made, then closes every
    /// connection and the listening socket.
    func stop() async {
        guard let daemon else { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state in
                state.stopping = true
                if state.working > 0 { state.drained = continuation }
                return state.working == 0
            }
            if idle { continuation.resume() }
        }
        // No connection is suspended now: every one was resumed with its response.
        cmhd_stop(daemon)
        self.daemon = nil
        retained?.release()
        retained = nil
    }

    // MARK: - Requests (on libmicrohttpd's thread)

    /// The access handler: called when the headers are in, for each piece of a body, once
    /// the request is complete, and again after a resume.
    fileprivate func handle(
        _ connection: OpaquePointer, path: String, method: String, uploadSize: UnsafeMutablePointer<Int>,
        context: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        guard let existing = context.pointee else {
            guard method == "GET" || method == "HEAD" else { return queue(.methodNotAllowed, on: connection) }
            let exchange = Exchange(HTTPRequest(path: path, query: Self.arguments(of: connection)))
            context.pointee = Unmanaged.passRetained(exchange).toOpaque()
            return .YES
        }
        let exchange = Unmanaged<Exchange>.fromOpaque(existing).takeUnretainedValue()
        // GET and HEAD carry no body: one that comes anyway ends the connection unread.
        guard uploadSize.pointee == 0 else { return .NO }
        if let response = exchange.takeResponse() { return queue(response, on: connection) }
        guard !exchange.started else { return .YES }
        exchange.started = true
        return begin(exchange, on: connection)
    }

    private func begin(_ exchange: Exchange, on connection: OpaquePointer) -> MHD_Result {
        let admitted = state.withLock { state in
            guard !state.stopping else { return false }
            state.working += 1
            return true
        }
        guard admitted else { return queue(.text(503, "blectld is stopping"), on: connection) }
        let respond = respond
        cmhd_suspend(connection)
        let suspended = SuspendedConnection(pointer: connection)
        Task {
            exchange.setResponse(await respond(exchange.request))
            cmhd_resume(suspended.pointer)
            self.finishedWork()
        }
        return .YES
    }

    private func finishedWork() {
        let drained = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.working -= 1
            guard state.working == 0 else { return nil }
            defer { state.drained = nil }
            return state.drained
        }
        drained?.resume()
    }

    private func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        let made = response.body.withUnsafeBytes { cmhd_response($0.baseAddress, $0.count) }
        guard let made else { return .NO }
        defer { cmhd_release(made) }
        cmhd_add_header(made, "Content-Type", response.contentType)
        for header in response.headers { cmhd_add_header(made, header.name, header.value) }
        return cmhd_queue(connection, UInt32(response.status), made)
    }

    /// The query's arguments, at most 32 (the request's size bounds them anyway).
    private static func arguments(of connection: OpaquePointer) -> [String: String] {
        let collected = ArgumentCollector()
        let context = Unmanaged.passUnretained(collected).toOpaque()
        cmhd_arguments(connection, collectArgument, context)
        return collected.values
    }

    // MARK: - Connections and messages

    fileprivate func connectionOpened() {
        let warn = state.withLock { state -> Bool in
            state.open += 1
            guard state.open >= limits.connections, !state.full else { return false }
            state.full = true
            return true
        }
        if warn {
            log.warning(
                "HTTP: \(limits.connections) connections are open, the most served at once; "
                    + "new ones wait until some end (http_max_connections)")
        }
    }

    fileprivate func connectionClosed() {
        state.withLock { state in
            state.open -= 1
            if state.open <= limits.connections / 2 { state.full = false }
        }
    }

    /// libmicrohttpd's own messages: about clients mostly (a reset, a timeout), so debug.
    fileprivate func libraryMessage(_ text: String) {
        log.debug("HTTP: libmicrohttpd: \(text)")
    }
}

/// One request's state between the calls of the access handler, owned by libmicrohttpd's
/// request context from the first call until the request completes.
private final class Exchange: @unchecked Sendable {
    // @unchecked Sendable: `request` is immutable, `started` is touched only on
    // libmicrohttpd's thread, and the response is handed over under a lock.
    let request: HTTPRequest
    var started = false
    private let response = Locked<HTTPResponse?>(nil)

    init(_ request: HTTPRequest) { self.request = request }

    func setResponse(_ value: HTTPResponse) { response.withLock { $0 = value } }

    func takeResponse() -> HTTPResponse? {
        response.withLock { value in
            defer { value = nil }
            return value
        }
    }
}

/// A suspended connection, handed to the task that resumes it.
private struct SuspendedConnection: @unchecked Sendable {
    // @unchecked Sendable: libmicrohttpd allows resuming a suspended connection from any thread.
    let pointer: OpaquePointer
}

/// The query's arguments while libmicrohttpd lists them.
private final class ArgumentCollector {
    var values: [String: String] = [:]
}

private let collectArgument: MHD_KeyValueIterator = { context, _, key, value in
    let collector = Unmanaged<ArgumentCollector>.fromOpaque(context!).takeUnretainedValue()
    guard let key, collector.values.count < 32 else { return .YES }
    collector.values[String(cString: key)] = value.map { String(cString: $0) } ?? ""
    return .YES
}

private func server(_ context: UnsafeMutableRawPointer?) -> HTTPServer {
    Unmanaged<HTTPServer>.fromOpaque(context!).takeUnretainedValue()
}

private let accessHandler: MHD_AccessHandlerCallback = {
    context, connection, url, method, _, _, uploadSize, requestContext in
    server(context).handle(
        connection!, path: String(cString: url!), method: String(cString: method!), uploadSize: uploadSize!,
        context: requestContext!)
}

private let requestCompleted: MHD_RequestCompletedCallback = { _, _, requestContext, _ in
    guard let requestContext, let exchange = requestContext.pointee else { return }
    Unmanaged<Exchange>.fromOpaque(exchange).release()
    requestContext.pointee = nil
}

private let connectionNotice: MHD_NotifyConnectionCallback = { context, _, _, code in
    if code == .CONNECTION_NOTIFY_STARTED {
        server(context).connectionOpened()
    } else {
        server(context).connectionClosed()
    }
}

private let libraryLog: MHD_LogCallback = { context, format, arguments in
    guard let format, let arguments else { return }
    var buffer = [CChar](repeating: 0, count: 512)
    _ = vsnprintf(&buffer, buffer.count, format, arguments)
    let text = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    server(context).libraryMessage(text.hasSuffix("\n") ? String(text.dropLast()) : text)
}
