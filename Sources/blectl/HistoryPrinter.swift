import BlectlProtocol
import SensorModel

/// Writes `history`'s events as they come, page by page: a table for a person, a JSON
/// array of the daemon's objects as they came, or CSV with a header.
struct HistoryPrinter {
    enum OutputFormat { case text, json, csv }

    /// What one page said, for the paging.
    struct Page {
        var wellFormed = false
        var more = false
        var complete = true
        /// The last event's time and `seq`: where the next page starts.
        var last: (time: Timestamp, seq: UInt64)?
    }

    let format: OutputFormat
    let terminal: Terminal
    /// Events written so far.
    private(set) var count = 0
    private var output = StdoutBuffer()
    /// Gaps the daemon reported and not shown yet, oldest first; a gap comes with every page
    /// whose span it overlaps, so those shown are remembered.
    private var gaps: [HistoryGap] = []
    private var gapsSeen = Set<HistoryGap>()

    /// The CSV columns: the reading's fields (docs/protocol.md), why a value was not one, and
    /// where it came from (`live`, or `memory` for one read back from the sensor).
    static let csvColumns =
        ["seq", "time", "address", "name", "profile"] + Quantity.allCases.map(\.key) + [
            "unit", "raw", "error", "source",
        ]

    init(format: OutputFormat, terminal: Terminal) {
        self.format = format
        self.terminal = terminal
    }

    /// The header (CSV, text) or the array's opening.
    mutating func begin() {
        switch format {
        case .csv: output.append(line: Self.csvColumns.joined(separator: ","))
        case .json: output.append("[")
        case .text: output.append(line: terminal.paint(HistoryLine.header, .bold))
        }
    }

    /// Writes a `history` reply's events; returns its `more`, `complete` and last event.
    mutating func take(page reply: ReplyLine) -> Page {
        var page = Page()
        reply.bytes.withUnsafeBufferPointer { buffer in
            let scanner = JSONScanner(buffer)
            var eventsWellFormed = false
            var events: Range<Int>?
            let objectWellFormed = scanner.members(of: reply.payload) { key, value in
                if scanner.equals(key, "more") {
                    page.more = scanner.equals(value, "true")
                } else if scanner.equals(key, "complete") {
                    page.complete = !scanner.equals(value, "false")
                } else if scanner.equals(key, "gaps") {
                    _ = scanner.elements(of: value) { gap in take(gap: EventFields(buffer, gap)) }
                } else if scanner.equals(key, "events") {
                    events = value
                }
                return true
            }
            // After the members: `gaps` follows `events` in the reply, and goes among them.
            if let events {
                eventsWellFormed = scanner.elements(of: events) { event in
                    let fields = EventFields(buffer, event)
                    if let time = fields.text("time").flatMap(Timestamp.init(rfc3339:)),
                        let seq = fields.number("seq").flatMap(UInt64.init)
                    {
                        page.last = (time, seq)
                    }
                    write(fields, buffer[event])
                }
            }
            page.wellFormed = objectWellFormed && eventsWellFormed
        }
        return page
    }

    /// Keeps a gap of a reply to show in its place among the readings.
    private mutating func take(gap fields: EventFields) {
        guard let from = fields.text("from").flatMap(Timestamp.init(rfc3339:)),
            let until = fields.text("until").flatMap(Timestamp.init(rfc3339:)),
            let reason = fields.text("reason").flatMap(GapReason.init(rawValue:))
        else { return }
        let gap = HistoryGap(
            address: fields.text("address").flatMap(BluetoothAddress.init), from: from, until: until, reason: reason)
        guard gapsSeen.insert(gap).inserted else { return }
        gaps.append(gap)
        gaps.sort { $0.from < $1.from }
    }

    /// Shows the gaps that began before `time` (all when nil): in the table for a person,
    /// on stderr beside CSV and JSON.
    private mutating func showGaps(before time: Timestamp?) {
        while let gap = gaps.first, time.map({ gap.from < $0 }) ?? true {
            gaps.removeFirst()
            let who = gap.address.map { " from \($0)" } ?? ""
            let text =
                "no readings\(who) from \(Format.localDateTime(gap.from)) to \(Format.localDateTime(gap.until)): "
                + gap.reason.rawValue
            if format == .text {
                output.append(line: terminal.paint("-- " + text, .yellow))
            } else {
                output.notice(text)
            }
        }
    }

    private mutating func write(_ fields: EventFields, _ json: Slice<UnsafeBufferPointer<UInt8>>) {
        showGaps(before: fields.text("time").flatMap(Timestamp.init(rfc3339:)))
        switch format {
        case .json:
            if count > 0 { output.append(",") }
            output.append("\n")
            output.append(bytes: UnsafeBufferPointer(rebasing: json))
        case .csv:
            output.append(line: Self.csvColumns.map { csvCell(fields, $0) }.joined(separator: ","))
        case .text:
            output.append(line: HistoryLine(terminal: terminal).line(fields))
        }
        count += 1
    }

    /// A CSV cell: the value as text (numbers as the daemon wrote them), empty when absent,
    /// quoted when it holds a comma, a quote or a line break (RFC 4180).
    private func csvCell(_ fields: EventFields, _ column: String) -> String {
        let value: String?
        switch column {
        case "raw": value = fields.text("raw") ?? fields.text("raw_hex")  // a reading error's bytes
        case "source": value = fields.text("source") ?? ReadingSource.live.rawValue
        default: value = fields.value(column)
        }
        guard let value else { return "" }
        guard value.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return value }
        return "\"" + value.replacing("\"", with: "\"\"") + "\""
    }

    /// The array's end, and everything written out.
    mutating func finish() {
        showGaps(before: nil)
        if format == .json { output.append(count > 0 ? "\n]\n" : "]\n") }
        output.flush()
    }

    /// Writes out what is buffered.
    mutating func flush() {
        output.flush()
    }

    /// A notice on stderr, after everything written so far.
    mutating func notice(_ text: String) {
        output.notice(text)
    }
}

/// `history`'s text columns: local date and time, name, address, then the values or the
/// error, the raw value and the `seq`.
struct HistoryLine {
    let terminal: Terminal

    static let nameWidth = 20
    static let addressWidth = 17
    static let timeWidth = 19  // 2026-11-30 01:02:03
    static let temperatureWidth = 9

    static var header: String {
        [
            Format.fit("TIME", timeWidth), Format.fit("NAME", nameWidth), Format.fit("ADDRESS", addressWidth),
            "READING",
        ].joined(separator: "  ")
    }

    func line(_ fields: EventFields) -> String {
        let time = fields.text("time").flatMap(Timestamp.init(rfc3339:)).map(Format.localDateTime) ?? "?"
        var details: [String]
        if let error = fields.text("error") {
            details = [terminal.paint(error, .red), "(raw \(fields.text("raw_hex") ?? ""))"]
        } else {
            let celsius = fields.number("celsius").flatMap(Double.init)
            details = [
                terminal.paint(
                    Format.rightAligned(celsius.map(terminal.temperature) ?? "–", Self.temperatureWidth), .bold)
            ]
            for quantity in Quantity.allCases where quantity != .temperature {
                if let value = fields.number(quantity.key) {
                    details.append("\(quantity.key) \(value) \(quantity.symbol)")
                }
            }
            details.append("(raw \"\(fields.text("raw") ?? "")\")")
            if let source = fields.text("source") { details.append(terminal.paint("from \(source)", .dim)) }
        }
        details.append("#\(fields.number("seq") ?? "?")")
        return [
            Format.fit(time, Self.timeWidth), Format.fit(Format.name(fields.text("name")), Self.nameWidth),
            Format.fit(fields.text("address") ?? "", Self.addressWidth), details.joined(separator: "  "),
        ].joined(separator: "  ")
    }
}

/// The top-level members of one event object, read in place.
struct EventFields {
    private let buffer: UnsafeBufferPointer<UInt8>
    private var members: [String: Range<Int>] = [:]

    init(_ buffer: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        self.buffer = buffer
        let scanner = JSONScanner(buffer)
        var members: [String: Range<Int>] = [:]
        _ = scanner.members(of: range) { key, value in
            members[String(decoding: buffer[key], as: UTF8.self)] = value
            return true
        }
        self.members = members
    }

    /// A string member's text (escapes decoded); nil when absent, null or not a string.
    func text(_ key: String) -> String? {
        guard let range = members[key], range.count >= 2, buffer[range.lowerBound] == UInt8(ascii: "\"") else {
            return nil
        }
        let inner = buffer[(range.lowerBound + 1)..<(range.upperBound - 1)]
        guard inner.contains(UInt8(ascii: "\\")) else { return String(decoding: inner, as: UTF8.self) }
        return try? JSONLines.decode(String.self, from: buffer[range])
    }

    /// A number member's text as the daemon wrote it; nil when absent, null or not a number.
    func number(_ key: String) -> String? {
        guard let range = members[key], let first = range.first.map({ buffer[$0] }),
            first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first)
        else { return nil }
        return String(decoding: buffer[range], as: UTF8.self)
    }

    /// A string's text or a number's; nil when absent or null.
    func value(_ key: String) -> String? {
        text(key) ?? number(key)
    }
}
