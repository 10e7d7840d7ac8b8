import BlectlProtocol
import Glibc
import UnixSupport

/// `blectl help [COMMAND]`, `--help` and `--dump-spec`, all written from ``CommandTable``.
enum HelpCommand {
    static func run(_ context: Context) throws(CLIError) -> ExitStatus {
        try show(context.arguments.positionals.first)
    }

    /// Prints the global help, or `verbName`'s.
    static func show(_ verbName: String?) throws(CLIError) -> ExitStatus {
        guard let verbName else { return write(globalHelp) }
        guard let verb = CommandTable.verb(named: verbName) else { throw .usage("unknown command '\(verbName)'") }
        return write(help(for: verb))
    }

    private static func write(_ text: String) -> ExitStatus {
        writeAll(STDOUT_FILENO, Array((text + "\n").utf8))
        return .success
    }

    static var globalHelp: String {
        let commands = columns(CommandTable.verbs.map { (synopsis($0), $0.spec.help) })
        let environment = columns(CommandTable.environment.map { ($0.name, $0.help) })
        let exitStatuses = ExitStatus.all.map { Format.rightAligned("\($0.code)", 4) + "  " + $0.meaning }
        return """
            Usage: blectl [OPTIONS] COMMAND [ARGS]

            Talks to blectld, the BLE thermometer daemon. Options may come before or after the command.

            Commands:
            \(commands)

            Options:
            \(CommandTable.globals.helpLines())

            'blectl help COMMAND' or 'blectl COMMAND --help' explains a command, with examples.

            Environment:
            \(environment)

            Exit status:
            \(exitStatuses.joined(separator: "\n"))
            """
    }

    static func help(for verb: Verb) -> String {
        let options = verb.spec.options.isEmpty ? "" : "Options:\n\(verb.spec.options.helpLines())\n\n"
        let examples = columns(verb.examples.map { ($0.command, $0.what) })
        return """
            Usage: blectl [OPTIONS] \(synopsis(verb))

            \(verb.spec.help).

            \(Format.wrap(verb.details, width: 88))

            \(options)Global options:
            \(CommandTable.globals.helpLines())

            Examples:
            \(examples)

            Exit status: see 'blectl --help'.
            """
    }

    /// `read [ADDRESS|NAME] [--timeout SECONDS]`.
    static func synopsis(_ verb: Verb) -> String {
        ([verb.name, verb.spec.positionalUsage] + verb.spec.options.map { "[\($0.synopsis)]" })
            .filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// Indented rows of two columns, the first padded to the widest up to 44 characters;
    /// a wider one has its second column on the next line.
    private static func columns(_ rows: [(String, String)]) -> String {
        let widest = 44
        let width = (rows.map(\.0.count).filter { $0 <= widest }.max() ?? 0) + 2
        return rows.map { first, second in
            let gap =
                first.count + 2 > width
                ? "\n" + String(repeating: " ", count: width + 2) : String(repeating: " ", count: width - first.count)
            return "  " + first + gap + second
        }.joined(separator: "\n")
    }
}
