public import Central
public import HistoryStore
public import HTTPOutput
public import SensorModel
public import MQTTOutput
public import ReadingHub
public import SocketOutput
public import UnixSupport

/// Everything blectld can be told: built-in defaults, overridden by the configuration
/// file, then by `BLECTL_SOCKET`, then by command-line flags.
///
/// It is composed of the modules' own configurations, which hold their defaults and
/// declare their settings (``ConfigurationSetting/all`` lifts their tables into this one);
/// what is the daemon's alone is declared here.
public struct DaemonConfiguration: Equatable, Sendable {
    /// The default configuration file.
    public static let defaultConfigPath = "/etc/blectl/blectld.conf"
    /// The default state directory (the systemd unit's `StateDirectory=blectl`).
    public static let defaultStateDirectory = "/var/lib/blectl"

    /// The configuration file read (or that would have been read).
    public var configPath = defaultConfigPath
    /// The Unix socket, its group and the client limits.
    public var socket = SocketServer.Configuration()
    /// One Bluetooth adapter (`adapter`): `hci0`, its address, or `auto` (the first powered one
    /// with the central role); nil when not given.
    public var adapter: String?
    /// The Bluetooth adapters (`adapters`): `auto`, `all`, or a list; nil when not given
    /// (then `adapter`, else `auto`).
    public var adapters: AdapterSet?
    /// The least severe log level written.
    public var logLevel = LogLevel.info
    /// What marks a thermometer, the back-off, the links and the scan watchdog (the monitor's
    /// profiles and device table are set from ``serviceUUIDs`` and ``hub`` when it starts).
    public var thermometers = ThermometerConfiguration()
    /// Extra thermometer service UUIDs, normalised to lowercase 128-bit form, on top of
    /// the built-in ones.
    public var serviceUUIDs: [String] = []
    /// Where the history database lives; nil means ``defaultStateDirectory``, or a temporary
    /// directory under `--mock`.
    public var stateDirectory: String?
    /// Whether readings are kept in the history database (`history`). Without it `history`
    /// requests answer `unavailable`, `status` has no history, and MQTT cannot be configured
    /// (its backlog waits in the history).
    public var history = true
    /// The history store's commit interval, retention and size bound.
    public var historyStore = HistoryStore.Configuration()
    /// The HTTP output (the page, /metrics, /api); off without an address.
    public var http = HTTPOutput.Settings()
    /// The hub's scan length and device table.
    public var hub = Hub.Limits()
    /// Whether to switch the adapter on when it is off.
    public var powerOnAdapter = CentralOptions().powerOnAdapter
    /// Whether to run against the built-in mock adapter instead of BlueZ.
    public var mock = false
    /// The keys of sensors that encrypt (`bthome_key ADDRESS = HEX`, `mibeacon_key ADDRESS = HEX`).
    public var advertisementKeys: [BluetoothAddress: AdvertisementKey] = [:]
    /// MQTT: the broker, and the `mqtt_*` settings (docs/mqtt.md).
    public var mqtt = MQTTOutput.Settings()
    /// Advertising sensors (`scan_mode`, `advert_*`) and the host's CPU (`host_cpu*`).
    public var advertisements = AdvertisementSettings()
    /// Filling gaps from the sensors' memory and setting their clocks (`sensor_memory*`, `sensor_clock_sync`).
    public var sensorMemory = SensorMemorySettings()

    /// The defaults.
    public init() {}

    /// The adapters the central uses: `adapters`, else `adapter` as a one-element selection
    /// (`adapter = auto` keeps its meaning, the first powered adapter), else every adapter
    /// (`adapters = auto`).
    public var adapterSelection: (single: AdapterSelection, set: AdapterSet?) {
        if let adapters { return (.automatic, adapters) }
        guard let adapter, let selection = AdapterSelection(adapter) else { return (.automatic, .automatic) }
        switch selection {
        case .automatic: return (.automatic, nil)
        case .name(let name): return (selection, .listed([.unresolved(name: name)]))
        case .address(let address): return (selection, .listed([.address(address)]))
        }
    }
}

/// What the daemon's command line asks for.
public enum DaemonInvocation: Equatable, Sendable {
    /// Run with this configuration.
    case run(DaemonConfiguration)
    /// Print this help text and exit 0.
    case help(String)
    /// Print this version line and exit 0.
    case version(String)
    /// Print this JSON (`--dump-spec`: options and configuration keys) and exit 0.
    case specDump(String)
}

/// A configuration mistake, with where it is and how to exit.
public enum ConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The command line was wrong.
    case usage(UsageError)
    /// A line of the configuration file was wrong.
    case file(path: String, line: Int, message: String)
    /// The configuration file could not be read.
    case unreadable(SystemError)
    /// A file holding sensor keys that every user may read (its permission bits).
    case exposedKeys(path: String, mode: UInt32)
    /// Two settings that exclude each other were both given (`adapter` and `adapters`).
    case conflict(String)

    /// The exit status: 64 for the command line, 78 (`EX_CONFIG`) for the file.
    public var exitCode: Int32 {
        switch self {
        case .usage: ExitCode.usage
        case .file, .unreadable, .exposedKeys, .conflict: ExitCode.configuration
        }
    }

    /// A readable form, for logs and messages.
    public var description: String {
        switch self {
        case .usage(let error): error.message
        case .file(let path, let line, let message): "\(path):\(line): \(message)"
        case .unreadable(let error): "cannot read configuration: \(error)"
        case .conflict(let message): message
        case .exposedKeys(let path, let mode):
            "\(path) holds sensor keys and every user can read it (mode \(String(mode, radix: 8))): "
                + "let only root and blectld's group read it, e.g. chown root:blectld \(path); chmod 640 \(path)"
        }
    }
}
