/// A command-line mistake; the executables print it with a hint and exit with ``ExitCode/usage``.
public struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What was wrong, for a person.
    public var message: String

    /// Creates an error with `message`.
    public init(_ message: String) {
        self.message = message
    }

    /// A readable form, for logs and messages.
    public var description: String { message }
}

/// One `--name` option a command accepts.
public struct OptionSpec: Hashable, Sendable {
    /// Whether an option is a switch or carries a value.
    public enum Kind: Hashable, Sendable {
        /// `--json`: present or not.
        case flag
        /// `--socket PATH` or `--socket=PATH`; the last one given wins.
        case value
        /// `--name N`, repeatable; every value is kept in order.
        case repeatedValue
    }

    /// The long name without dashes.
    public var name: String
    /// Switch or value.
    public var kind: Kind
    /// An optional one-letter alias, used as `-h`; only for flags.
    public var short: Character?
    /// The placeholder shown in help, e.g. `PATH`.
    public var valueName: String
    /// One line of help.
    public var help: String
    /// The values the option takes, for help and shell completion; the command checks them
    /// (it may also take a comma-separated list of them, or another spelling).
    public var choices: [String] = []
    /// Left out of help (an option for tools, such as a spec dump); still accepted.
    public var hidden = false

    /// A switch such as `--json`.
    public static func flag(_ name: String, short: Character? = nil, hidden: Bool = false, help: String) -> OptionSpec {
        OptionSpec(name: name, kind: .flag, short: short, valueName: "", help: help, hidden: hidden)
    }

    /// An option with a value such as `--socket PATH`.
    public static func value(_ name: String, _ valueName: String, choices: [String] = [], help: String) -> OptionSpec {
        OptionSpec(name: name, kind: .value, short: nil, valueName: valueName, help: help, choices: choices)
    }

    /// A repeatable option such as `--name NAME`.
    public static func repeated(_ name: String, _ valueName: String, help: String) -> OptionSpec {
        OptionSpec(name: name, kind: .repeatedValue, short: nil, valueName: valueName, help: help)
    }

    /// How the option appears in help: `--socket PATH`, `-h, --help`.
    public var synopsis: String {
        let long = kind == .flag ? "--\(name)" : "--\(name) \(valueName)"
        return short.map { "-\($0), \(long)" } ?? long
    }
}

/// A verb (sub-command) with its own options and positional arguments.
public struct VerbSpec: Sendable {
    /// The word on the command line, e.g. `read`.
    public var name: String
    /// Options valid after the verb, in addition to the globals.
    public var options: [OptionSpec]
    /// How many positional arguments the verb takes.
    public var positionalCount: ClosedRange<Int>
    /// The positionals as help shows them, e.g. `[ADDRESS|NAME]`.
    public var positionalUsage: String
    /// One line of help.
    public var help: String

    /// Creates a verb.
    public init(
        _ name: String,
        options: [OptionSpec] = [],
        positionals: ClosedRange<Int> = 0...0,
        positionalUsage: String = "",
        help: String
    ) {
        self.name = name
        self.options = options
        self.positionalCount = positionals
        self.positionalUsage = positionalUsage
        self.help = help
    }
}

/// What the command line said, after validation.
public struct ParsedArguments: Equatable, Sendable {
    /// The verb, if the parser has verbs and one was given.
    public var verb: String?
    /// Positional arguments after the verb (or all of them, without verbs).
    public var positionals: [String] = []
    /// Every value given per option name, in order; flags map to an empty array.
    public var options: [String: [String]] = [:]

    /// Whether the flag (or any option) `name` was given.
    public func flag(_ name: String) -> Bool { options[name] != nil }

    /// The last value of option `name`.
    public func value(_ name: String) -> String? { options[name]?.last }

    /// Every value of a repeatable option `name`, in order.
    public func values(_ name: String) -> [String] { options[name] ?? [] }
}

/// A small argv parser: verbs, `--opt value`, `--opt=value`, flags, and global options
/// accepted anywhere on the line.
///
/// Options before the verb must be global (the parser cannot know a verb's options before
/// seeing it); options after it may be global or the verb's. `--` ends option parsing.
public struct ArgvParser: Sendable {
    /// Options valid everywhere.
    public var globals: [OptionSpec]
    /// The verbs; empty for a command without any.
    public var verbs: [VerbSpec]
    /// How many positionals a command without verbs takes; none by default.
    public var positionalCount: ClosedRange<Int>

    /// Creates a parser.
    public init(globals: [OptionSpec], verbs: [VerbSpec] = [], positionals: ClosedRange<Int> = 0...0) {
        self.globals = globals
        self.verbs = verbs
        self.positionalCount = positionals
    }

    /// Parses `arguments` (without the program name).
    public func parse(_ arguments: [String]) throws(UsageError) -> ParsedArguments {
        var result = ParsedArguments()
        var verb: VerbSpec?
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if !optionsEnded && argument == "--" {
                optionsEnded = true
            } else if !optionsEnded && argument.hasPrefix("-") && argument != "-" {
                let known = globals + (verb?.options ?? [])
                try parseOption(argument, known: known, arguments: arguments, index: &index, into: &result)
            } else if !verbs.isEmpty && verb == nil {
                guard let found = verbs.first(where: { $0.name == argument }) else {
                    throw UsageError("unknown command '\(argument)'")
                }
                verb = found
                result.verb = found.name
            } else {
                result.positionals.append(argument)
            }
        }
        // `read A B --help` asks for help: show it rather than count the arguments.
        if !result.flag("help") { try checkPositionals(result.positionals, verb: verb) }
        return result
    }

    private func parseOption(
        _ argument: String,
        known: [OptionSpec],
        arguments: [String],
        index: inout Int,
        into result: inout ParsedArguments
    ) throws(UsageError) {
        let (spec, inlineValue) = try lookUp(argument, known: known)
        switch spec.kind {
        case .flag:
            guard inlineValue == nil else { throw UsageError("option --\(spec.name) takes no value") }
            result.options[spec.name] = []
        case .value, .repeatedValue:
            let value: String
            if let inlineValue {
                value = inlineValue
            } else if index < arguments.count {
                value = arguments[index]
                index += 1
            } else {
                throw UsageError("option --\(spec.name) needs a value (\(spec.valueName))")
            }
            if spec.kind == .value {
                result.options[spec.name] = [value]
            } else {
                result.options[spec.name, default: []].append(value)
            }
        }
    }

    private func lookUp(_ argument: String, known: [OptionSpec]) throws(UsageError) -> (OptionSpec, String?) {
        if argument.hasPrefix("--") {
            let body = argument.dropFirst(2)
            let name = body.split(separator: "=", maxSplits: 1).first.map(String.init) ?? ""
            let inlineValue = body.contains("=") ? String(body[body.index(after: body.firstIndex(of: "=")!)...]) : nil
            guard let spec = known.first(where: { $0.name == name }) else {
                throw UsageError("unknown option '--\(name)'")
            }
            return (spec, inlineValue)
        }
        let letters = argument.dropFirst()
        guard letters.count == 1, let spec = known.first(where: { $0.short == letters.first }) else {
            throw UsageError("unknown option '\(argument)'")
        }
        return (spec, nil)
    }

    private func checkPositionals(_ positionals: [String], verb: VerbSpec?) throws(UsageError) {
        let allowed = verb?.positionalCount ?? (verbs.isEmpty ? positionalCount : 0...0)
        if positionals.count > allowed.upperBound {
            throw UsageError("unexpected argument '\(positionals[allowed.upperBound])'")
        }
        if positionals.count < allowed.lowerBound, let verb {
            throw UsageError("'\(verb.name)' needs \(verb.positionalUsage)")
        }
    }
}

extension [OptionSpec] {
    /// The options as aligned help lines: `  --socket PATH   Socket to connect to`; hidden
    /// options are left out.
    public func helpLines(indent: String = "  ") -> String {
        let shown = filter { !$0.hidden }
        let width = (shown.map(\.synopsis.count).max() ?? 0) + 2
        return shown.map { spec in
            let padding = String(repeating: " ", count: width - spec.synopsis.count)
            return indent + spec.synopsis + padding + spec.help
        }.joined(separator: "\n")
    }
}

/// The form `--dump-spec` prints an option in, for man-page and completion tests:
/// `{"name","short","value","repeatable","choices","hidden","help"}`, `value` being the
/// placeholder (`PATH`) or null for a flag.
extension OptionSpec: Encodable {
    private enum CodingKeys: String, CodingKey {
        case name, short, value, repeatable, choices, hidden, help
    }

    /// Encodes the option as `--dump-spec` shows it.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encodeIfPresent(short.map { String($0) }, forKey: .short)
        try container.encodeIfPresent(kind == .flag ? nil : valueName, forKey: .value)
        try container.encode(kind == .repeatedValue, forKey: .repeatable)
        try container.encode(choices, forKey: .choices)
        try container.encode(hidden, forKey: .hidden)
        try container.encode(help, forKey: .help)
    }
}
