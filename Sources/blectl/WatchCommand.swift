import BlectlProtocol
import Glibc
import UnixSupport

/// `blectl watch`: prints every event until interrupted.
///
/// If the daemon goes away (a restart), watch reconnects with a growing delay and
/// resumes: it subscribes first, then asks for the readings it missed since the last
/// `seq` it printed, so nothing is lost or printed twice.
enum WatchCommand {
    static func run(_ context: Context) throws(CLIError) {
        // Ctrl-C is the normal way to stop: exit 0; everything printed is whole lines.
        let watcher = SignalWatcher([.interrupt, .terminate]) { _ in exit(ExitCode.success) }
        defer { watcher.cancel() }
        var printer = EventPrinter(terminal: context.terminal)
        var client = try context.connect()
        // The start time tells a reconnection to a restarted daemon (new seq numbers) apart.
        printer.daemonStarted = try client.request(.status, as: StatusResult.self, timeout: .seconds(10)).started
        let subscribed = try client.request(.subscribe(events: nil), as: SubscribeResult.self, timeout: .seconds(10))
        printer.lastSeq = subscribed.lastSeq
        printer.note("Watching blectld (last seq \(subscribed.lastSeq)); Ctrl-C to stop.")
        while true {
            do {
                try stream(client, &printer)
            } catch CLIError.failure(DaemonClient.connectionLost) {
                printer.warn("lost the connection to blectld; reconnecting")
                client = reconnectAndResume(context, &printer)
            }
        }
    }

    private static func reconnectAndResume(_ context: Context, _ printer: inout EventPrinter) -> DaemonClient {
        while true {
            let client = reconnect(context)
            do {
                try resume(client, &printer)
                return client
            } catch {
                continue  // gone again: start over
            }
        }
    }

    private static func stream(_ client: DaemonClient, _ printer: inout EventPrinter) throws(CLIError) {
        while true {
            let (event, line) = try client.nextEvent()
            printer.print(event, line: line)
        }
    }

    /// Connects again, waiting 0.5 s, 1 s, 2 s … (at most 5 s) between attempts.
    private static func reconnect(_ context: Context) -> DaemonClient {
        var delay = 0.5
        while true {
            var pause = timespec(tv_sec: Int(delay), tv_nsec: Int((delay - delay.rounded(.down)) * 1e9))
            nanosleep(&pause, nil)
            if let client = try? context.connect() { return client }
            delay = min(delay * 2, 5)
        }
    }

    /// Subscribes, then prints what was missed since the last printed `seq`.
    private static func resume(_ client: DaemonClient, _ printer: inout EventPrinter) throws(CLIError) {
        let status = try client.request(.status, as: StatusResult.self, timeout: .seconds(10))
        _ = try client.request(.subscribe(events: nil), as: SubscribeResult.self, timeout: .seconds(10))
        if status.started != printer.daemonStarted {
            printer.warn("blectld restarted; its history starts anew")
            printer.daemonStarted = status.started
            printer.lastSeq = 0
        }
        while true {
            let page = try client.request(
                .history(address: nil, since: printer.lastSeq, limit: nil), as: HistoryResult.self,
                timeout: .seconds(10))
            if !page.complete { printer.warn("some readings were lost: the daemon's history no longer has them") }
            for event in page.events { printer.print(event, line: nil) }
            if !page.more || page.events.isEmpty { break }
        }
        printer.note("reconnected")
    }
}

/// Prints events once each, in text or as the daemon's JSON lines.
struct EventPrinter {
    let terminal: Terminal
    /// The highest `seq` printed (or known when watching began); older readings are skipped.
    var lastSeq: UInt64 = 0
    /// When the daemon we follow started; another value means it restarted and numbers anew.
    var daemonStarted: Timestamp?

    init(terminal: Terminal) {
        self.terminal = terminal
    }

    mutating func print(_ event: Event, line: [UInt8]?) {
        if let seq = event.seq {
            guard seq > lastSeq else { return }
            lastSeq = seq
        }
        if terminal.json {
            // The daemon's own line when there is one: exactly the documented object.
            if let line {
                writeAll(STDOUT_FILENO, line + [UInt8(ascii: "\n")])
            } else {
                terminal.printJSON(event)
            }
        } else {
            terminal.print(describe(event))
        }
    }

    /// A status line for people; JSON output stays pure.
    func note(_ text: String) {
        if !terminal.json { terminal.print(terminal.paint(text, .dim)) }
    }

    /// A warning on stderr.
    func warn(_ text: String) {
        writeAll(STDERR_FILENO, Array("blectl: \(text)\n".utf8))
    }

    /// The event-type column: the longest type and two spaces, so no type runs into the
    /// subject (`peripheral_seen` did at a fixed 15).
    private static let kindWidth = EventType.allCases.map(\.rawValue.count).max()! + 2

    private func describe(_ event: Event) -> String {
        let (time, subject, details) = fields(event)
        let kind = event.type.rawValue
        let kindColumn = kind + String(repeating: " ", count: Self.kindWidth - kind.count)
        let subjectColumn = subject + String(repeating: " ", count: max(0, 32 - subject.count))
        let rest = details.filter { !$0.isEmpty }.joined(separator: "  ")
        return terminal.paint(Format.clock(time), .dim) + "  " + kindColumn + subjectColumn + "  " + rest
    }

    private func fields(_ event: Event) -> (Timestamp, String, [String]) {
        func subject(_ name: String?, _ address: String) -> String {
            Format.name(name) + "  " + address
        }
        switch event {
        case .reading(let reading):
            let value = terminal.paint(Format.celsius(reading.celsius), .bold)
            return (
                reading.time, subject(reading.name, reading.address),
                [value, "(raw \"\(reading.measurement.raw)\")", "#\(reading.seq)"]
            )
        case .readingError(let failure):
            let error = terminal.paint(failure.error, .red)
            return (
                failure.time, subject(failure.name, failure.address),
                [error, "(raw \(failure.rawHex))", "#\(failure.seq)"]
            )
        case .peripheralSeen(let sighting):
            return (
                sighting.time, subject(sighting.name, sighting.address),
                [sighting.rssi.map { "\($0) dBm" } ?? "", sighting.thermometer ? "thermometer" : ""]
            )
        case .peripheralLost(let change), .connected(let change):
            return (change.time, subject(change.name, change.address), [])
        case .disconnected(let change):
            return (change.time, subject(change.name, change.address), [change.reason ?? ""])
        case .adapterState(let change):
            return (change.time, change.adapter, [change.state.rawValue])
        }
    }
}
