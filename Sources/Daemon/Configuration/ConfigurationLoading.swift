import BlectlProtocol
import Glibc
public import UnixSupport

extension DaemonConfiguration {
    /// The options blectld accepts, for help and for the parser.
    static var options: [OptionSpec] {
        [.value("config", "PATH", help: "Configuration file (default \(defaultConfigPath))")]
            + ConfigurationSetting.all.compactMap(\.option)
            + [
                .flag("mock", help: "Use the built-in mock adapter instead of BlueZ (its own bus and blectl-mock)"),
                .flag("help", short: "h", help: "Show this help"),
                .flag("version", help: "Show the version"),
                .flag(
                    "dump-spec", hidden: true,
                    help: "Print options, configuration keys, exit statuses and signals as JSON (man pages)"),
            ]
    }

    /// Builds the configuration from the command line, the configuration file it names
    /// (or the default one, which may be absent), `BLECTL_SOCKET`, and the key sources
    /// (`key_file`, the `blectl-keys` credential).
    ///
    /// The command line is parsed first, so a usage error is reported before any file is
    /// read; precedence is defaults < file < environment < command line.
    ///
    /// - Parameters:
    ///   - readFile: reads a file; nil when it does not exist (tests pass their own).
    ///   - permissions: a file's permission bits, to refuse keys every user can read.
    public static func load(
        arguments: [String],
        environment: [String: String],
        readFile: (String) throws(SystemError) -> String? = { path throws(SystemError) in try readTextFile(path) },
        permissions: (String) throws(SystemError) -> UInt32 = { path throws(SystemError) in try filePermissions(path) }
    ) throws(ConfigurationError) -> DaemonInvocation {
        let parsed: ParsedArguments
        do {
            parsed = try ArgvParser(globals: options).parse(arguments)
        } catch {
            throw .usage(error)
        }
        if parsed.flag("help") { return .help(helpText) }
        if parsed.flag("version") { return .version("blectld \(ProtocolInfo.softwareVersion)") }
        if parsed.flag("dump-spec") { return .specDump(DaemonSpecDump.text) }

        var configuration = DaemonConfiguration()
        if let path = parsed.value("config") { configuration.configPath = path }
        let text: String?
        do {
            text = try readFile(configuration.configPath)
        } catch {
            throw .unreadable(error)
        }
        if let text {
            try configuration.apply(fileText: text, path: configuration.configPath)
        } else if parsed.value("config") != nil {
            // Only the default file may be absent: a file named on purpose must exist.
            throw .unreadable(SystemError("open(\(configuration.configPath))", code: ENOENT))
        }
        if let socket = environment[ProtocolInfo.socketEnvironmentVariable], !socket.isEmpty {
            try configuration.applyOverride("socket", [socket], source: ProtocolInfo.socketEnvironmentVariable)
        }
        try configuration.apply(parsed)
        if let adapter = configuration.adapter, configuration.adapters != nil {
            throw .conflict(
                "adapter = \(adapter) and adapters are both given: use adapters alone (adapters = \(adapter) "
                    + "is what adapter = \(adapter) says)")
        }
        try configuration.loadKeys(environment: environment, readFile: readFile, permissions: permissions)
        return .run(configuration)
    }

    /// Applies the command line's settings over the current ones.
    private mutating func apply(_ parsed: ParsedArguments) throws(ConfigurationError) {
        for setting in ConfigurationSetting.all {
            guard let flag = setting.flag, parsed.flag(flag) else { continue }
            let values = setting.kind == .boolean ? ["yes"] : parsed.values(flag)
            try applyOverride(setting.key, values, source: "--\(flag)")
        }
        if parsed.flag("mock") { mock = true }
    }

    private mutating func applyOverride(_ key: String, _ values: [String], source: String) throws(ConfigurationError) {
        do {
            try ConfigurationSetting.named(key)!.apply(&self, values)
        } catch {
            throw .usage(UsageError("\(source): \(error.message)"))
        }
    }

    /// Help for `blectld --help`.
    public static var helpText: String {
        """
        Usage: blectld [OPTIONS]

        Keeps BLE thermometers connected and publishes peripherals and temperatures on a
        Unix socket (JSON Lines; see docs/protocol.md), and with --http as a page, Prometheus
        metrics and JSON over HTTP (docs/http.md). Runs in the foreground and logs to
        stderr, as a systemd service expects. Settings come from \(defaultConfigPath),
        then BLECTL_SOCKET, then these options.

        Options:
        \(options.helpLines())

        Exit status:
        \(DaemonSpec.exitStatuses.map(\.helpLine).joined(separator: "\n"))
        """
    }
}
