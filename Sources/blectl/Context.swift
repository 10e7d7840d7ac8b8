import SensorModel
import BlectlProtocol
import Glibc
import UnixSupport

/// What every command gets: how to reach the daemon, how to print, and its arguments.
struct Context {
    var socketPath: String
    var hint: ConnectionHint
    var terminal: Terminal
    var arguments: ParsedArguments

    /// The context the command line and the environment describe.
    init(_ arguments: ParsedArguments, environment: [String: String]) throws(CLIError) {
        let chosen =
            arguments.value("socket")
            ?? environment[ProtocolInfo.socketEnvironmentVariable].flatMap { $0.isEmpty ? nil : $0 }
        socketPath = chosen ?? ProtocolInfo.defaultSocketPath
        hint = ConnectionHint(
            socketPath: socketPath, chosenByUser: chosen != nil && chosen != ProtocolInfo.defaultSocketPath,
            environment: environment)
        terminal = Terminal(
            json: arguments.flag("json"), unit: try Self.unit(arguments, environment), environment: environment)
        self.arguments = arguments
    }

    func connect() throws(CLIError) -> DaemonClient {
        try DaemonClient.connect(path: socketPath, hint: hint)
    }

    /// `--timeout SECONDS`, checked against the daemon's limit `maximum`, if given.
    func timeout(maximum: Int) throws(CLIError) -> Double? {
        guard let text = arguments.value("timeout") else { return nil }
        guard let seconds = Double(text), seconds.isFinite, seconds >= 0, seconds <= Double(maximum) else {
            throw .usage("--timeout is 0 to \(maximum) seconds (blectld's limit), not '\(text)'")
        }
        return seconds
    }

    /// `--unit`, else `BLECTL_UNIT` (ignored with a warning when it is not C or F), else °C.
    private static func unit(_ arguments: ParsedArguments, _ environment: [String: String]) throws(CLIError)
        -> TemperatureUnit
    {
        if let text = arguments.value("unit") {
            guard let unit = TemperatureUnit(rawValue: text.uppercased()) else {
                throw .usage("--unit is C or F, not '\(text)'")
            }
            return unit
        }
        guard let text = environment["BLECTL_UNIT"], !text.isEmpty else { return .celsius }
        guard let unit = TemperatureUnit(rawValue: text.uppercased()) else {
            writeAll(STDERR_FILENO, Array("blectl: ignoring BLECTL_UNIT='\(text)' (it is C or F)\n".utf8))
            return .celsius
        }
        return unit
    }
}
