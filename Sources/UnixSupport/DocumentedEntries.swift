/// A name a program documents with what it means (an environment variable, a signal), as
/// its help and `--dump-spec` list it: `{"name": "NO_COLOR", "help": "no colour, ..."}`.
public struct DocumentedName: Encodable, Sendable {
    /// The variable's or signal's name.
    public var name: String
    /// What it means, for a person.
    public var help: String

    /// Creates an entry.
    public init(name: String, help: String) {
        self.name = name
        self.help = help
    }
}

/// An exit status as help and `--dump-spec` list it: `{"status": 64, "meaning": "..."}`.
public struct ExitStatusEntry: Encodable, Sendable {
    /// The number the process exits with.
    public var status: Int32
    /// What it means, for a person.
    public var meaning: String

    /// Creates an entry.
    public init(status: Int32, meaning: String) {
        self.status = status
        self.meaning = meaning
    }

    /// The status as `--help` lists it: `  64  a usage error on the command line`.
    public var helpLine: String {
        String(repeating: " ", count: max(0, 4 - "\(status)".count)) + "\(status)  \(meaning)"
    }
}
