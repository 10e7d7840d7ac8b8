import BlectlProtocol
import UnixSupport

/// `blectl --dump-spec`: ``CommandTable`` as JSON, so man pages and shell completions can
/// be generated from (or tested against) the same table the parser and help use.
struct SpecDump: Encodable {
    struct Command: Encodable {
        var name: String
        var synopsis: String
        var positionals: String
        var minPositionals: Int
        var maxPositionals: Int
        var help: String
        var details: String
        var options: [OptionSpec]
        var examples: [Example]

        private enum CodingKeys: String, CodingKey {
            case name, synopsis, positionals, help, details, options, examples
            case minPositionals = "min_positionals"
            case maxPositionals = "max_positionals"
        }
    }

    var program = "blectl"
    var version = ProtocolInfo.softwareVersion
    var options = CommandTable.globals
    var commands = CommandTable.verbs.map { verb in
        Command(
            name: verb.name, synopsis: HelpCommand.synopsis(verb), positionals: verb.spec.positionalUsage,
            minPositionals: verb.spec.positionalCount.lowerBound, maxPositionals: verb.spec.positionalCount.upperBound,
            help: verb.spec.help, details: verb.details, options: verb.spec.options,
            examples: verb.examples)
    }
    var environment = CommandTable.environment
    var exitStatuses = ExitStatus.all.map { ExitStatusEntry(status: $0.code, meaning: $0.meaning) }

    private enum CodingKeys: String, CodingKey {
        case program, version, options, commands, environment
        case exitStatuses = "exit_statuses"
    }

    /// The dump as pretty JSON.
    static var text: String {
        (try? JSONLines.encodeString(SpecDump(), pretty: true)) ?? "{}"
    }
}
