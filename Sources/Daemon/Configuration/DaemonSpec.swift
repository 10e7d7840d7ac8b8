import BlectlProtocol
import UnixSupport

/// A signal or environment variable as `--dump-spec` lists it.
struct SpecEntry: Encodable, Sendable {
    /// The signal's name (`SIGHUP`) or the variable's name.
    var name: String
    /// What it means, for a person.
    var meaning: String
}

/// An exit status as help and `--dump-spec` list it (the form `blectl --dump-spec` uses).
struct ExitStatusEntry: Encodable, Sendable {
    var status: Int32
    /// What it means, for a person.
    var meaning: String

    /// The status as `--help` lists it: `   64  a usage error on the command line`.
    var helpLine: String {
        String(repeating: " ", count: max(0, 4 - "\(status)".count)) + "\(status)  \(meaning)"
    }
}

/// What blectld documents besides its settings: one table for `--help`, the man page's
/// test (through `--dump-spec`) and the README.
enum DaemonSpec {
    static let exitStatuses: [ExitStatusEntry] = [
        ExitStatusEntry(status: ExitCode.success, meaning: "stopped by SIGTERM or SIGINT"),
        ExitStatusEntry(
            status: ExitCode.failure,
            meaning: "it cannot start, or its D-Bus connection dropped (the unit's Restart=on-failure starts it again)"),
        ExitStatusEntry(status: ExitCode.usage, meaning: "a usage error on the command line"),
        ExitStatusEntry(
            status: ExitCode.temporaryFailure, meaning: "another blectld already serves the socket (nothing is started)"
        ),
        ExitStatusEntry(status: ExitCode.configuration, meaning: "a bad configuration file"),
    ]

    static let signals: [SpecEntry] = [
        SpecEntry(name: "SIGTERM", meaning: "stop cleanly: unsubscribe, disconnect, remove the socket, exit 0"),
        SpecEntry(name: "SIGINT", meaning: "the same as SIGTERM"),
        SpecEntry(
            name: "SIGHUP",
            meaning: "read the configuration again: the log level applies at once, other settings at the next start"),
    ]

    static let environment: [SpecEntry] = [
        SpecEntry(name: ProtocolInfo.socketEnvironmentVariable, meaning: "the socket, over the file's socket ="),
        SpecEntry(name: "DBUS_SYSTEM_BUS_ADDRESS", meaning: "the system bus to find BlueZ on"),
        SpecEntry(name: "BLECTL_MOCK_OPTIONS", meaning: "options blectld --mock passes to blectl-mock"),
    ]
}

/// `blectld --dump-spec`: the options, the configuration keys, exit statuses, signals and
/// environment as JSON, so the man pages and completions are tested against the code.
struct DaemonSpecDump: Encodable {
    struct Setting: Encodable {
        var key: String
        /// The placeholder of its value (`SECONDS`); empty for a yes/no setting.
        var value: String
        /// `single`, `optional`, `list` or `boolean`.
        var kind: String
        /// The command-line option that sets it too, without dashes, if any.
        var option: String?
        var help: String
    }

    var program = "blectld"
    var version = ProtocolInfo.softwareVersion
    var options = DaemonConfiguration.options
    var settings = ConfigurationSetting.all.map { setting in
        Setting(
            key: setting.key, value: setting.valueName, kind: "\(setting.kind)", option: setting.flag,
            help: setting.help)
    }
    var deviceSettings = DeviceSetting.all.map { setting in
        Setting(key: setting.key, value: setting.valueName, kind: "per-device", option: nil, help: setting.help)
    }
    var exitStatuses = DaemonSpec.exitStatuses
    var signals = DaemonSpec.signals
    var environment = DaemonSpec.environment

    private enum CodingKeys: String, CodingKey {
        case program, version, options, settings, signals, environment
        case deviceSettings = "device_settings"
        case exitStatuses = "exit_statuses"
    }

    /// The dump as pretty JSON.
    static var text: String {
        (try? JSONLines.encodeString(DaemonSpecDump(), pretty: true)) ?? "{}"
    }
}
