import BlectlProtocol
import Glibc
import Synchronization
import UnixSupport

/// `blectl watch [--events LIST]`: prints events until interrupted.
///
/// If the daemon goes away (a restart), watch reconnects with a growing delay and
/// resumes: it subscribes first, then asks for the readings it missed since the last
/// `seq` it printed, so nothing is lost or printed twice.
enum WatchCommand {
    /// What a person watching wants: not every advertising device in the street.
    static let defaultEvents: [EventType] = [.reading, .readingError, .connected, .disconnected, .adapterState]
    /// What the default leaves out, for help: `peripheral_seen and peripheral_lost`.
    static var leftOutByDefault: String {
        EventType.allCases.filter { !defaultEvents.contains($0) }.map(\.rawValue).joined(separator: " and ")
    }

    static func run(_ context: Context) throws(CLIError) -> ExitStatus {
        let events = try eventTypes(context.arguments.value("events"))
        let stop = StopRequest()
        let watcher = SignalWatcher([.interrupt, .terminate]) { _ in stop.request() }
        defer { watcher.cancel() }
        var sink = EventSink(terminal: context.terminal)
        var client = try context.connect()
        // The start time tells a reconnection to a restarted daemon (new seq numbers) apart.
        var daemonStarted = try client.request(.status, as: StatusResult.self, timeout: .seconds(10)).started
        let subscribed = try client.request(.subscribe(events: events), as: SubscribeResult.self, timeout: .seconds(10))
        sink.lastSeq = subscribed.lastSeq
        if !context.terminal.json { sink.notice("watching blectld (last seq \(subscribed.lastSeq)); Ctrl-C to stop") }
        while true {
            do {
                stop.follow(client.fd)
                try client.streamEvents({ sink.take($0, $1) }, beforeWaiting: { sink.flush() })
            } catch {
                sink.flush()
                stop.follow(nil)
                if stop.isRequested { return .success }
                guard error.status == .daemonUnreachable else { throw error }
                sink.notice("lost the connection to blectld (\(error.message)); reconnecting")
                client = try reconnect(context, events: events, sink: &sink, daemonStarted: &daemonStarted)
                sink.notice("reconnected")
            }
        }
    }

    /// `--events`: a comma-separated list of event types, or `all` (nil: every type).
    static func eventTypes(_ text: String?) throws(CLIError) -> Set<EventType>? {
        guard let text else { return Set(defaultEvents) }
        if text == "all" { return nil }
        var types = Set<EventType>()
        for name in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let type = EventType(rawValue: String(name)) else {
                let known = EventType.allCases.map(\.rawValue).joined(separator: ", ")
                throw .usage("--events takes all or a comma-separated list of: \(known); not '\(name)'")
            }
            types.insert(type)
        }
        return types
    }

    /// Connects again, waiting 0.5 s, 1 s, 2 s … (at most 5 s) between attempts, and prints
    /// what was missed. Only a daemon still out of reach is waited out.
    private static func reconnect(
        _ context: Context, events: Set<EventType>?, sink: inout EventSink, daemonStarted: inout Timestamp
    ) throws(CLIError) -> DaemonClient {
        var delay = 0.5
        while true {
            var pause = timespec(tv_sec: Int(delay), tv_nsec: Int((delay - delay.rounded(.down)) * 1e9))
            nanosleep(&pause, nil)
            delay = min(delay * 2, 5)
            do {
                let client = try context.connect()
                try resume(client, events: events, sink: &sink, daemonStarted: &daemonStarted)
                return client
            } catch {
                guard error.status == .daemonUnreachable else { throw error }
                continue  // gone again: start over
            }
        }
    }

    /// Subscribes, then prints what was missed since the last printed `seq`.
    private static func resume(
        _ client: DaemonClient, events: Set<EventType>?, sink: inout EventSink, daemonStarted: inout Timestamp
    ) throws(CLIError) {
        let status = try client.request(.status, as: StatusResult.self, timeout: .seconds(10))
        _ = try client.request(.subscribe(events: events), timeout: .seconds(10))
        // A restarted blectld keeps its history and numbers on (docs/history.md), so watch
        // goes on after the last `seq` it printed. Only one whose numbers are below that lost
        // its history (a new state directory): everything it has is new then.
        if status.lastSeq < sink.lastSeq {
            sink.notice("blectld restarted without its history and numbers readings anew")
            sink.lastSeq = 0
        } else if status.started != daemonStarted {
            sink.notice("blectld restarted; going on after #\(sink.lastSeq)")
        }
        daemonStarted = status.started
        while true {
            let page = try client.request(
                // The daemon cuts a page to fit this client's output queue beside pushed events.
                .history(HistoryQuery(since: sink.lastSeq)), timeout: .seconds(10))
            let (more, complete, count) = replay(page, events: events, sink: &sink)
            if !complete { sink.notice("some readings were lost: the daemon's history no longer has them") }
            if !more || count == 0 { break }
        }
    }

    /// Prints a `history` page's events as if they had been pushed; returns its `more`
    /// and `complete` and how many events it held.
    private static func replay(_ page: ReplyLine, events: Set<EventType>?, sink: inout EventSink) -> (
        more: Bool, complete: Bool, count: Int
    ) {
        var more = false
        var complete = true
        var count = 0
        page.bytes.withUnsafeBufferPointer { buffer in
            let scanner = JSONScanner(buffer)
            _ = scanner.members(of: page.payload) { key, value in
                if scanner.equals(key, "more") {
                    more = scanner.equals(value, "true")
                } else if scanner.equals(key, "complete") {
                    complete = !scanner.equals(value, "false")
                } else if scanner.equals(key, "events") {
                    _ = scanner.elements(of: value) { event in
                        count += 1
                        sink.take(buffer, event, types: events)
                    }
                }
                return true
            }
        }
        return (more, complete, count)
    }
}

/// Ctrl-C or SIGTERM during `watch`: the signal shuts the connection down, so the blocked
/// read returns and everything received is written out before blectl exits 0. Between
/// connections nothing is buffered, and the signal exits at once.
final class StopRequest: Sendable {
    private let requested = Atomic<Bool>(false)
    private let socket = Atomic<Int32>(-1)

    /// Whether a signal asked to stop.
    var isRequested: Bool { requested.load(ordering: .acquiring) }

    /// The connection a signal should shut down (nil: none, exit at once).
    func follow(_ fd: Int32?) {
        socket.store(fd ?? -1, ordering: .releasing)
    }

    /// Called on the signal queue.
    func request() {
        requested.store(true, ordering: .releasing)
        let fd = socket.load(ordering: .acquiring)
        if fd < 0 { exit(ExitStatus.success.code) }
        shutdown(fd, Int32(SHUT_RDWR))
    }
}
