import BlectlProtocol
import UnixSupport

/// One blectl command: what the parser accepts, its help, and the code that runs it.
struct Verb: Sendable {
    /// Name, options, positionals and one line of help, as the parser takes them.
    var spec: VerbSpec
    /// What `blectl help VERB` says after the usage line: paragraphs for a person.
    var details: String
    /// Command lines worth copying, each with what it does.
    var examples: [Example]
    /// Runs the command; returns the exit status when it finished without an error.
    var run: @Sendable (Context) throws(CLIError) -> ExitStatus

    var name: String { spec.name }
}

/// An example command line in help.
struct Example: Encodable, Sendable {
    var command: String
    var what: String
}

/// The single source of blectl's command line: the parser, the dispatch, `--help`,
/// `blectl help VERB`, the README's table and `--dump-spec` (for man pages and shell
/// completions) all come from here.
enum CommandTable {
    static let globals: [OptionSpec] = [
        .value(
            "socket", "PATH",
            help:
                "Daemon socket (env \(ProtocolInfo.socketEnvironmentVariable); default \(ProtocolInfo.defaultSocketPath))"
        ),
        .flag("json", help: "Print JSON instead of text: the daemon's objects as they came"),
        .value(
            "unit", "C|F", choices: ["C", "F"],
            help: "Show temperatures in °C or °F (env BLECTL_UNIT; default C); JSON keeps celsius"),
        .flag("help", short: "h", help: "Show this help; with a command, that command's"),
        .flag("version", help: "Show the version"),
        .flag(
            "dump-spec", hidden: true,
            help: "Print commands, options, environment and exit statuses as JSON (man pages, completions)"),
    ]

    static let verbs: [Verb] = [status, scan, read, history, memory, watch, help]

    static let environment: [DocumentedName] = [
        DocumentedName(name: ProtocolInfo.socketEnvironmentVariable, help: "the daemon socket, unless --socket"),
        DocumentedName(name: "BLECTL_UNIT", help: "C or F: the unit text shows, unless --unit"),
        DocumentedName(name: "NO_COLOR", help: "no colour, even on a terminal"),
    ]

    static let parser = ArgvParser(globals: globals, verbs: verbs.map(\.spec))

    /// The verb called `name`; the parser accepted only names from the table.
    static func verb(named name: String) -> Verb? {
        verbs.first { $0.name == name }
    }

    private static let status = Verb(
        spec: VerbSpec("status", help: "Daemon and adapter state, connected thermometers"),
        details: """
            Shows blectld's version and uptime, the adapter and its state, and each connected thermometer \
            with its latest temperature and its age.
            """,
        examples: [
            Example(command: "blectl status", what: "is the daemon up, is the adapter on"),
            Example(command: "blectl status --json", what: "the daemon's status object"),
        ],
        run: StatusCommand.run)

    private static let scan = Verb(
        spec: VerbSpec(
            "scan",
            options: [
                .value(
                    "timeout", "SECONDS",
                    help: "How long to scan, 0 to \(ProtocolInfo.maxScanSeconds) (default: the daemon's scan_timeout)"),
                .flag("all", help: "Include peripherals that are not thermometers"),
            ],
            help: "Scan, then list the peripherals seen"),
        details: """
            Asks blectld to scan for SECONDS (at most \(ProtocolInfo.maxScanSeconds)), then lists the \
            thermometers seen, the connected ones and every advertising sensor a format decodes, with \
            its profile and family (SENSOR); --all adds every other peripheral. A scan already running is \
            joined rather than repeated.
            """,
        examples: [
            Example(command: "blectl scan", what: "thermometers in range"),
            Example(command: "blectl scan --timeout 30 --all", what: "everything seen in 30 s"),
        ],
        run: ScanCommand.run)

    private static let read = Verb(
        spec: VerbSpec(
            "read",
            options: [
                .value(
                    "timeout", "SECONDS",
                    help: "How long to wait for a thermometer, 0 to \(ProtocolInfo.maxReadTimeoutSeconds) (default 10)")
            ],
            positionals: 0...1, positionalUsage: "[ADDRESS|NAME]",
            help: "A current temperature from each connected thermometer"),
        details: """
            Reads a temperature afresh from each connected thermometer, or only from the one named by its \
            address or its name (in any case), waiting up to SECONDS (at most \
            \(ProtocolInfo.maxReadTimeoutSeconds)) for one to connect. When none does, the latest stored \
            readings are printed instead; if nothing was read afresh, blectl says why on stderr (for example \
            "adapter hci0 is powered off — last reading 6 s ago") and exits 4.
            """,
        examples: [
            Example(command: "blectl read", what: "every connected thermometer"),
            Example(command: "blectl read Thermometer --timeout 30", what: "one device, waiting up to 30 s"),
            Example(command: "blectl --unit F read", what: "in degrees Fahrenheit"),
            Example(command: "blectl read DC:A6:32:01:02:03 --json", what: "as JSON, celsius"),
        ],
        run: ReadCommand.run)

    private static let history = Verb(
        spec: VerbSpec(
            "history",
            options: [
                .value(
                    "since", "DURATION|TIME",
                    help: "From this long ago (90s, 15m, 24h, 7d) or this RFC 3339 time (default: 24h before --until)"),
                .value("until", "DURATION|TIME", help: "Up to (not including) this time, the same way (default: now)"),
                .value("limit", "N", help: "At most N readings, the oldest first"),
                .flag("csv", help: "Print CSV with a header line instead of a table"),
            ],
            positionals: 0...1, positionalUsage: "[ADDRESS|NAME]",
            help: "Stored readings of a time range, oldest first"),
        details: """
            Prints the readings (and values that were not readings) that blectld stored from --since up to \
            --until, oldest first, of every thermometer or of the one named by its address or its name (in \
            any case; a name matches every device seen with it since blectld started). Without --since it \
            shows the last 24 hours (before --until, if given). blectld keeps readings on disk across \
            restarts and power cuts, for history_retention (30 days by default).

            Text is a table in local time. --json is an array of blectld's reading objects as they came \
            (the fields of read --json, with type and seq; values that were not readings have error and \
            raw_hex instead). --csv has a header line: \(HistoryPrinter.csvColumns.joined(separator: ",")); a \
            value not measured is an empty cell, and error is set only on values that were not readings. If \
            some readings of the range are no longer stored (pruned, or lost while the disk could not be \
            written), blectl says so on stderr.
            """,
        examples: [
            Example(command: "blectl history", what: "the last 24 hours, as a table"),
            Example(
                command: "blectl history --since 24h --csv > temps.csv", what: "a day of readings for a spreadsheet"),
            Example(command: "blectl history Thermometer --since 1h", what: "one device (by name), the last hour"),
            Example(
                command: "blectl history --since 2026-11-30T00:00:00Z --until 2026-12-01T00:00:00Z --json",
                what: "one UTC day, as a JSON array"),
            Example(command: "blectl history --since 7d --limit 10", what: "the 10 oldest readings of the week"),
        ],
        run: HistoryCommand.run)

    private static let memory = Verb(
        spec: VerbSpec(
            "memory",
            options: [
                .value(
                    "timeout", "SECONDS",
                    help:
                        "With ADDRESS: how long to wait for the download, 0 to \(ProtocolInfo.maxMemoryDownloadSeconds) "
                        + "(default \(Int(MemoryCommand.defaultTimeout)))")
            ],
            positionals: 0...1, positionalUsage: "[ADDRESS]",
            help: "Sensors whose memory blectld reads; with ADDRESS, read it now"),
        details: """
            Without ADDRESS, lists the sensors whose memory or clock blectld reads (pvvx/ATC and \
            Xiaomi stock firmware, ThermoPro clocks) that it heard since it started, as blectl status does: the last download of each, when and how it ended, the records \
            it stored, those it dropped as duplicates (their minute had a reading) and those it rejected, \
            the sensor clock's drift and when it was last set.

            With ADDRESS, blectld reads that sensor's memory now, to fill a gap without waiting for \
            sensor_memory_after, and sets its clock if sensor_clock_sync allows and the gateway's clock is \
            synchronised; blectl waits up to SECONDS (at most \(ProtocolInfo.maxMemoryDownloadSeconds)) for \
            the download to end and prints the sensor's row. A download already running is waited for, not \
            repeated. The sensor must have been heard since blectld started (exit 68 otherwise); with \
            sensor_memory = off, or history = no, blectl exits 3; when the download outlasts SECONDS it \
            exits 75 and the download goes on (blectl memory shows how it ended).
            """,
        examples: [
            Example(command: "blectl memory", what: "every memory sensor's last download and clock"),
            Example(command: "blectl memory A4:C1:38:01:02:03", what: "fill that sensor's gap now"),
            Example(command: "blectl memory A4:C1:38:01:02:03 --timeout 300 --json", what: "as JSON, waiting 5 min"),
        ],
        run: MemoryCommand.run)

    private static let watch = Verb(
        spec: VerbSpec(
            "watch",
            options: [
                .value(
                    "events", "LIST", choices: ["all"] + EventType.allCases.map(\.rawValue),
                    help: "Event types, comma-separated, or all (default: all but \(WatchCommand.leftOutByDefault))")
            ],
            help: "Stream readings and events until interrupted"),
        details: """
            Prints events as they happen until interrupted (Ctrl-C or SIGTERM: exit 0). Text has fixed \
            columns: time, event, name, address, details. With --json every event is the daemon's line, \
            unchanged. By default peripheral_seen and peripheral_lost (every advertising device nearby) are \
            left out; --events all shows them. If blectld goes away, watch reconnects and first prints the \
            readings it missed (by sequence number). Notices such as a reconnection go to stderr.
            """,
        examples: [
            Example(command: "blectl watch", what: "readings, errors, connections, adapter changes"),
            Example(command: "blectl watch --events all", what: "every event, discoveries included"),
            Example(command: "blectl watch --json --events reading", what: "only readings, one JSON object a line"),
        ],
        run: WatchCommand.run)

    private static let help = Verb(
        spec: VerbSpec(
            "help", positionals: 0...1, positionalUsage: "[COMMAND]", help: "This help, or a command's with examples"),
        details: "Shows blectl's help, or with COMMAND that command's options and examples.",
        examples: [Example(command: "blectl help read", what: "how read works")],
        run: HelpCommand.run)
}
