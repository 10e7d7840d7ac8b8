import BlectlProtocol
import UnixSupport

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

    static let signals: [DocumentedName] = [
        DocumentedName(name: "SIGTERM", help: "stop cleanly: unsubscribe, disconnect, remove the socket, exit 0"),
        DocumentedName(name: "SIGINT", help: "the same as SIGTERM"),
        DocumentedName(
            name: "SIGHUP",
            help: "read the configuration again: the log level applies at once, other settings at the next start"),
    ]

    static let environment: [DocumentedName] = [
        DocumentedName(name: ProtocolInfo.socketEnvironmentVariable, help: "the socket, over the file's socket ="),
        DocumentedName(name: "DBUS_SYSTEM_BUS_ADDRESS", help: "the system bus to find BlueZ on"),
        DocumentedName(name: "BLECTL_MOCK_OPTIONS", help: "options blectld --mock passes to blectl-mock"),
        DocumentedName(
            name: DaemonRunner.mockClockVariable,
            help: "with --mock, yes or no: take the gateway's clock as synchronised or not (default: adjtimex)"),
        DocumentedName(
            name: "CREDENTIALS_DIRECTORY",
            help: "systemd's credentials (LoadCredential=): sensor keys from \(DaemonConfiguration.keyCredential)"),
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
            key: setting.key, value: setting.valueName, kind: setting.kind.rawValue, option: setting.flag,
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
