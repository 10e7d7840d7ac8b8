import BlectlProtocol
import Glibc
import UnixSupport

/// Runs blectl with `arguments` (without the program name); returns the exit status.
func runBlectl(_ arguments: [String], environment: [String: String]) -> Int32 {
    do {
        let parsed: ParsedArguments
        do {
            parsed = try CommandLineSpec.parser.parse(arguments)
        } catch {
            throw CLIError.usage(error.message)
        }
        if parsed.flag("help") {
            writeAll(STDOUT_FILENO, Array((CommandLineSpec.helpText + "\n").utf8))
            return ExitCode.success
        }
        if parsed.flag("version") {
            writeAll(STDOUT_FILENO, Array("blectl \(ProtocolInfo.softwareVersion)\n".utf8))
            return ExitCode.success
        }
        guard let verb = parsed.verb else { throw CLIError.usage("no command given") }
        let socket =
            parsed.value("socket") ?? environment[ProtocolInfo.socketEnvironmentVariable].flatMap {
                $0.isEmpty ? nil : $0
            }
            ?? ProtocolInfo.defaultSocketPath
        let context = Context(
            socketPath: socket, terminal: Terminal(json: parsed.flag("json"), environment: environment),
            arguments: parsed)
        switch verb {
        case "status": try StatusCommand.run(context)
        case "scan": try ScanCommand.run(context)
        case "read": try ReadCommand.run(context)
        case "watch": try WatchCommand.run(context)
        default: throw CLIError.usage("unknown command '\(verb)'")
        }
        return ExitCode.success
    } catch let error as CLIError {
        switch error {
        case .usage(let message):
            writeAll(STDERR_FILENO, Array("blectl: \(message)\nTry 'blectl --help'.\n".utf8))
            return ExitCode.usage
        case .failure(let message):
            writeAll(STDERR_FILENO, Array("blectl: \(message)\n".utf8))
            return ExitCode.failure
        }
    } catch {
        writeAll(STDERR_FILENO, Array("blectl: \(error)\n".utf8))
        return ExitCode.failure
    }
}

exit(runBlectl(Array(CommandLine.arguments.dropFirst()), environment: ProcessEnvironment.current))
