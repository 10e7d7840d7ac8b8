/// Why blectl stops early: a message for stderr and the exit status that tells scripts
/// which failure it was.
struct CLIError: Error, Equatable {
    /// A sentence (or a few lines) for a person, without the `blectl: ` prefix.
    var message: String
    /// What blectl exits with.
    var status: ExitStatus

    /// The command line was wrong: exit 64.
    static func usage(_ message: String) -> CLIError {
        CLIError(message: message, status: .usage)
    }

    /// Something failed at run time, with the status that names it.
    static func failure(_ message: String, _ status: ExitStatus = .failure) -> CLIError {
        CLIError(message: message, status: status)
    }
}
