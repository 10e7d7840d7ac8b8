import BlectlProtocol
import Glibc
import UnixSupport

/// Runs blectl with `arguments` (without the program name); returns the exit status.
func runBlectl(_ arguments: [String], environment: [String: String]) -> Int32 {
    var helpCommand = "blectl --help"
    do throws(CLIError) {
        let parsed: ParsedArguments
        do {
            parsed = try CommandTable.parser.parse(arguments)
        } catch {
            throw .usage(error.message)
        }
        if parsed.flag("help") { return try HelpCommand.show(parsed.verb).code }
        if parsed.flag("version") {
            writeAll(STDOUT_FILENO, Array("blectl \(ProtocolInfo.softwareVersion)\n".utf8))
            return ExitStatus.success.code
        }
        if parsed.flag("dump-spec") {
            writeAll(STDOUT_FILENO, Array((SpecDump.text + "\n").utf8))
            return ExitStatus.success.code
        }
        guard let name = parsed.verb, let verb = CommandTable.verb(named: name) else {
            throw .usage("no command given")
        }
        helpCommand = "blectl help \(name)"
        return try verb.run(Context(parsed, environment: environment)).code
    } catch {
        let hint = error.status == .usage ? "\nTry '\(helpCommand)'." : ""
        writeAll(STDERR_FILENO, Array("blectl: \(error.message)\(hint)\n".utf8))
        return error.status.code
    }
}

exit(runBlectl(Array(CommandLine.arguments.dropFirst()), environment: ProcessEnvironment.current))
