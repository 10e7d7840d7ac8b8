import BlectlProtocol
import Glibc
import UnixSupport

/// `blectl history [ADDRESS|NAME] [--since DURATION|TIME] [--until DURATION|TIME] [--limit N] [--csv]`:
/// stored readings of a time range, oldest first, paged from the daemon until done.
enum HistoryCommand {
    /// The range when `--since` is not given: this long before `--until` (or now).
    static let defaultSpan: Duration = .seconds(24 * 3600)
    /// How long one page may take to come (a page is a query of the store's thread).
    static let pageTimeout: Duration = .seconds(30)

    /// What to ask for: a time range of one device (or all), at most `limit` events.
    struct Selection {
        var device: String?
        var from: Timestamp
        var until: Timestamp?
        var limit: Int?
    }

    static func run(_ context: Context) throws(CLIError) -> ExitStatus {
        let arguments = context.arguments
        if arguments.flag("csv") && context.terminal.json { throw .usage("--csv and --json exclude each other") }
        let selection = try selection(arguments, now: Timestamp.now())
        let client = try context.connect()
        var printer = HistoryPrinter(
            format: arguments.flag("csv") ? .csv : context.terminal.json ? .json : .text, terminal: context.terminal)
        printer.begin()
        let complete: Bool
        do {
            complete = try fetch(selection, from: client, into: &printer)
        } catch {
            // What came before the failure is written out (a JSON array stays unclosed).
            printer.flush()
            throw error
        }
        printer.finish()
        if !complete {
            printer.notice(
                "some readings of this range are no longer stored (older than history_retention, over "
                    + "history_max_bytes, or lost while the disk could not be written)")
        }
        if printer.count == 0 && printer.format == .text {
            let end = selection.until.map(Format.localDateTime) ?? "now"
            printer.notice("no readings from \(Format.localDateTime(selection.from)) to \(end)")
        }
        return .success
    }

    /// The options as a selection; times relative to `now`.
    static func selection(_ arguments: ParsedArguments, now: Timestamp) throws(CLIError) -> Selection {
        let until = try arguments.value("until").map { text throws(CLIError) in try time(text, "until", now: now) }
        let from =
            try arguments.value("since").map { text throws(CLIError) in try time(text, "since", now: now) }
            ?? (until ?? now).moved(back: defaultSpan)
        if let until, until <= from {
            throw .usage("--until (\(until.rfc3339)) is not after --since (\(from.rfc3339))")
        }
        var limit: Int?
        if let text = arguments.value("limit") {
            guard let value = Int(text), value >= 1 else {
                throw .usage("--limit is a whole number from 1, not '\(text)'")
            }
            limit = value
        }
        return Selection(device: arguments.positionals.first, from: from, until: until, limit: limit)
    }

    /// A duration before `now` (`90s`, `15m`, `24h`, `7d`) or an RFC 3339 time.
    static func time(_ text: String, _ option: String, now: Timestamp) throws(CLIError) -> Timestamp {
        if let duration = DurationText.parse(text) { return now.moved(back: duration) }
        if let time = Timestamp(rfc3339: text) { return time }
        throw .usage(
            "--\(option) takes a duration before now (90s, 15m, 24h, 7d) or an RFC 3339 time "
                + "(2026-11-30T01:00:00Z, 2026-11-30T02:00:00+01:00), not '\(text)'")
    }

    /// Asks for pages until the range is done or the limit reached; each page starts after
    /// the last event of the one before (its time, and its `seq` among events of that
    /// millisecond). Returns whether the daemon still had every reading of the range.
    private static func fetch(_ selection: Selection, from client: DaemonClient, into printer: inout HistoryPrinter)
        throws(CLIError) -> Bool
    {
        var cursor = (time: selection.from, seq: UInt64(0))
        var complete = true
        while true {
            let remaining = selection.limit.map { $0 - printer.count }
            if let remaining, remaining <= 0 { return complete }
            let query = HistoryQuery(
                selector: selection.device, since: cursor.seq, from: cursor.time, until: selection.until,
                limit: remaining.map { min($0, ProtocolInfo.historyPageLimit) })
            let reply = try client.request(.history(query), timeout: pageTimeout)
            let page = printer.take(page: reply)
            guard page.wellFormed else { throw .failure("unexpected history reply from blectld", .protocolMismatch) }
            complete = complete && page.complete
            guard page.more, let last = page.last else { return complete }
            cursor = last
        }
    }
}

extension Timestamp {
    /// This instant `duration` earlier.
    func moved(back duration: Duration) -> Timestamp {
        let (seconds, attoseconds) = duration.components
        return Timestamp(
            millisecondsSince1970: millisecondsSince1970 - seconds * 1000 - attoseconds / 1_000_000_000_000_000)
    }
}
