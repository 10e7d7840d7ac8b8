/// Why blectl stops early, and with which exit status.
enum CLIError: Error, Equatable {
    /// The command line was wrong: exit 64.
    case usage(String)
    /// Something failed at run time: exit 1.
    case failure(String)
}
