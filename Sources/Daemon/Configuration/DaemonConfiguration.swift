import BlectlProtocol
public import Central
public import HTTPOutput
public import SensorModel
public import MQTTOutput
public import UnixSupport

/// Everything blectld can be told: built-in defaults, overridden by the configuration
/// file, then by `BLECTL_SOCKET`, then by command-line flags.
public struct DaemonConfiguration: Equatable, Sendable {
    /// How reconnection attempts back off after a thermometer is lost.
    public struct Backoff: Equatable, Sendable {
        /// The first delay.
        public var minimum: Duration = .milliseconds(250)
        /// The largest delay; delays double up to it.
        public var maximum: Duration = .seconds(10)
        /// Random spread as a fraction of each delay (0.2 = ±20 %).
        public var jitter: Double = 0.2

        /// The defaults.
        public init() {}
    }

    /// The default configuration file.
    public static let defaultConfigPath = "/etc/blectl/blectld.conf"

    /// The configuration file read (or that would have been read).
    public var configPath = defaultConfigPath
    /// The Unix socket clients connect to.
    public var socketPath = ProtocolInfo.defaultSocketPath
    /// The group that owns the socket (mode 0660), so its members may use blectl.
    public var socketGroup: String?
    /// The Bluetooth adapter: `hci0`, its address, or `auto` (the first powered one with the central role).
    public var adapter = "auto"
    /// The least severe log level written.
    public var logLevel = LogLevel.info
    /// Advertised names that mark a thermometer (the reference peripheral advertises
    /// no service UUID, so names are how it is found).
    public var names = ["Thermometer"]
    /// Extra thermometer service UUIDs, normalised to lowercase 128-bit form, on top of
    /// the built-in ones.
    public var serviceUUIDs: [String] = []
    /// Reconnection back-off.
    public var reconnect = Backoff()
    /// The default state directory (the systemd unit's `StateDirectory=blectl`).
    public static let defaultStateDirectory = "/var/lib/blectl"

    /// Where the history database lives; nil means ``defaultStateDirectory``, or a temporary
    /// directory under `--mock`.
    public var stateDirectory: String?
    /// Whether readings are kept in the history database (`history`). Without it `history`
    /// requests answer `unavailable`, `status` has no history, and MQTT cannot be configured
    /// (its backlog waits in the history).
    public var history = true
    /// How often the history store commits (at most): a power cut loses at most this much.
    public var historyCommitInterval: Duration = .seconds(5)
    /// How long readings are kept in the history store.
    public var historyRetention: Duration = .seconds(30 * 86400)
    /// The most bytes the history store's readings may take; the oldest go first.
    public var historyMaxBytes: Int64 = 512 << 20
    /// The most clients served at once.
    public var maxClients = 64
    /// The longest request line accepted, in bytes.
    public var maxLineLength = 64 * 1024
    /// The most bytes queued for one client before it is dropped as too slow.
    public var clientQueueBytes = 1 << 20
    /// The most clients one user (the connecting process's uid) may have at once.
    public var maxClientsPerUser = 16
    /// The most requests of one user being answered at once.
    public var maxPendingRequestsPerUser = 32
    /// The most bytes queued for all clients together before the slowest is dropped.
    public var maxQueuedBytesTotal = 8 << 20
    /// Where the HTTP output (the page, /metrics, /api) listens; nil: no HTTP.
    public var httpListen: ListenAddress?
    /// The most HTTP connections open at once.
    public var httpMaxConnections = 64
    /// How long a `scan` lasts when the request gives no timeout.
    public var scanTimeout: Duration = .seconds(10)
    /// Whether to switch the adapter on when it is off.
    public var powerOnAdapter = false
    /// Whether to look for GATT thermometers (`gatt_thermometers`); without them, only
    /// advertising sensors are read, and passive scanning leaves discovery off.
    public var gattThermometers = true
    /// Connection attempts under way at once.
    public var maxConnecting = 1
    /// Links held at once per adapter (thermometers known to work keep theirs reserved).
    public var maxConnections = 5
    /// Devices tracked (seen, named, thermometer or not); the one unseen longest is forgotten first.
    public var maxDevices = 1024
    /// Discovery hearing nothing from any device this long, while devices are expected,
    /// starts the recovery ladder; nil turns the scan watchdog off.
    public var scanWatchdog: Duration? = .seconds(90)
    /// Whether the ladder's last step may reset the controller with libbluetooth's HCI calls
    /// (needs `CAP_NET_ADMIN`: the unit's `blectld-adapter-reset.conf` drop-in).
    public var adapterReset = false
    /// Whether to run against the built-in mock adapter instead of BlueZ.
    public var mock = false
    /// Names shown for devices instead of their own (`alias ADDRESS = NAME`).
    public var aliases: [BluetoothAddress: String] = [:]
    /// The keys of sensors that encrypt (`bthome_key ADDRESS = HEX`, `mibeacon_key ADDRESS = HEX`).
    public var advertisementKeys: [BluetoothAddress: AdvertisementKey] = [:]
    /// MQTT: the broker, and the `mqtt_*` settings (docs/mqtt.md).
    public var mqtt = MQTTSettings()
    /// Advertising sensors (`scan_mode`, `advert_*`) and the host's CPU (`host_cpu*`).
    public var advertisements = AdvertisementSettings()

    /// The defaults.
    public init() {}
}

/// The `mqtt_*` settings; MQTT is off while ``broker`` is nil.
public struct MQTTSettings: Equatable, Sendable {
    /// `mqtt_url`: the broker, nil for no MQTT.
    public var broker: BrokerURL?
    /// `mqtt_protocol`: 3.1.1 or 5.
    public var protocolVersion = MQTTOutput.ProtocolVersion.v311
    /// `mqtt_username`.
    public var username: String?
    /// `mqtt_password_file`: the password's file (never the password itself).
    public var passwordFile: String?
    /// `mqtt_ca_file`, `mqtt_cert_file`, `mqtt_key_file`: TLS.
    public var caFile: String?
    /// The client certificate.
    public var certFile: String?
    /// The client certificate's key.
    public var keyFile: String?
    /// `mqtt_client_id`: nil for `blectl-<gateway>`.
    public var clientID: String?
    /// `mqtt_gateway`: nil for the host name.
    public var gateway: String?
    /// `mqtt_topic_prefix`.
    public var topicPrefix = "blectl"
    /// `mqtt_discovery_prefix`: empty turns Home Assistant discovery off.
    public var discoveryPrefix = "homeassistant"
    /// `mqtt_qos`.
    public var qos = 1
    /// `mqtt_retain_state`.
    public var retainState = false
    /// `mqtt_expire_after`: nil for automatic (three times the device's interval, at least 60 s).
    public var expireAfter: Duration?
    /// `mqtt_backlog_max`.
    public var backlogMax = 100_000

    /// The defaults: no MQTT.
    public init() {}
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

    /// The exit status: 64 for the command line, 78 (`EX_CONFIG`) for the file.
    public var exitCode: Int32 {
        switch self {
        case .usage: ExitCode.usage
        case .file, .unreadable: ExitCode.configuration
        }
    }

    /// A readable form, for logs and messages.
    public var description: String {
        switch self {
        case .usage(let error): error.message
        case .file(let path, let line, let message): "\(path):\(line): \(message)"
        case .unreadable(let error): "cannot read configuration: \(error)"
        }
    }
}
