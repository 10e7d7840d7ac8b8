import BlectlProtocol
import UnixSupport

/// blectl's options and verbs, and its help.
enum CommandLineSpec {
    static let globals: [OptionSpec] = [
        .value("socket", "PATH", help: "Daemon socket (env BLECTL_SOCKET, default \(ProtocolInfo.defaultSocketPath))"),
        .flag("json", help: "Print JSON instead of text"),
        .flag("help", short: "h", help: "Show this help"),
        .flag("version", help: "Show the version"),
    ]

    static let timeout = OptionSpec.value("timeout", "SECONDS", help: "How long to wait")

    static let verbs: [VerbSpec] = [
        VerbSpec("status", help: "Daemon and adapter state, connected thermometers"),
        VerbSpec(
            "scan", options: [timeout, .flag("all", help: "Include peripherals that are not thermometers")],
            help: "Scan, then list the peripherals seen"),
        VerbSpec(
            "read", options: [timeout], positionals: 0...1, positionalUsage: "[ADDRESS|NAME]",
            help: "A current temperature from each connected thermometer"),
        VerbSpec("watch", help: "Stream readings and events until interrupted"),
    ]

    static let parser = ArgvParser(globals: globals, verbs: verbs)

    static var helpText: String {
        let verbLines = verbs.map { verb in
            let options = verb.options.map { "[\($0.synopsis)]" }
            return ([verb.name, verb.positionalUsage] + options).filter { !$0.isEmpty }.joined(separator: " ")
        }
        let width = (verbLines.map(\.count).max() ?? 0) + 2
        let commands = zip(verbLines, verbs).map { line, verb in
            "  " + line + String(repeating: " ", count: width - line.count) + verb.help
        }.joined(separator: "\n")
        return """
            Usage: blectl [OPTIONS] COMMAND [ARGS]

            Talks to blectld, the BLE thermometer daemon. Options may come before or after the command.

            Commands:
            \(commands)

            Options:
            \(globals.helpLines())

            Environment: BLECTL_SOCKET (socket path), NO_COLOR (no colour even on a terminal).
            Exit status: 0 success, 1 failure (e.g. the daemon is not running), 64 usage error.
            """
    }
}
