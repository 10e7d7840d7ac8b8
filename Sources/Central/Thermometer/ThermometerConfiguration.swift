public import SensorModel
public import ThermometerProfiles
public import UnixSupport

/// What the thermometer monitor looks for and how patiently; ``settings`` lists what
/// blectld's configuration sets.
public struct ThermometerConfiguration: Equatable, Sendable {
    /// Advertised local names that mark a thermometer (the Pi's cputemp advertises "Thermometer").
    public var names: [String]
    /// Devices followed as GATT thermometers whatever they advertise (`gatt_live ADDRESS =
    /// yes`): a Xiaomi stock sensor read over GATT, no bind key needed.
    public var addresses: Set<BluetoothAddress> = []
    /// Profiles: which services and characteristics hold temperatures, and how to decode them.
    public var profiles: ProfileRegistry
    /// Backoff between reconnect attempts.
    public var reconnect: ReconnectPolicy
    /// Deadline for `Connect`, and separately for `ServicesResolved`.
    public var connectTimeout: Duration
    /// No value for this long on a subscribed link → reconnect (about 3× the notify period).
    public var dataTimeout: Duration
    /// How long to wait for a thermometer's GATT service to (re)appear on a live link.
    public var serviceTimeout: Duration
    /// While still looking for a thermometer, restart discovery this often
    /// (some controllers report an advertiser once per scan).
    public var rescanInterval: Duration
    /// Report a peripheral already seen again at most this often (RSSI updates).
    public var seenReportInterval: Duration
    /// How long to keep scanning after start-up and after each new thermometer,
    /// to find the others.
    public var discoveryWindow: Duration
    /// How often to scan again for new thermometers once all known ones stream.
    public var rescanPeriod: Duration
    /// How long each of those periodic scans lasts.
    public var rescanWindow: Duration
    /// Our scan pauses while connects are under way; within a scan window, for at most
    /// this long, so that a connect that hangs does not stop discovery.
    public var scanPauseLimit: Duration
    /// After a pause for connects, the scan runs at least this long before the next
    /// pause, so that one pause serves every thermometer heard meanwhile (about one
    /// advertising interval): without it, each pause would serve only the first
    /// thermometer heard after the scan resumed.
    public var connectBatchWindow: Duration
    /// Connection attempts under way at once (`max_connecting`).
    public var maxConnecting: Int
    /// Links held at once on each adapter (`max_connections`). Thermometers that worked before
    /// keep one each reserved (on the adapter of their last link) and go first.
    public var maxConnections: Int
    /// Devices remembered (names, sightings, sessions), thermometers known to work and those
    /// holding a link aside: the one unseen longest is forgotten first (`max_devices`).
    public var maxDevices: Int
    /// Whether discovery stays on all the time (advertising sensors are read from it), paused
    /// only while connects are under way, for at most ``scanPauseLimit`` each time.
    public var keepsScanning = false
    /// Whether thermometers are looked for at all (`gatt_thermometers`). Without, the monitor
    /// opens no scan window of its own and connects to nothing; it still keeps discovery on
    /// for ``keepsScanning`` and scans for `blectl scan`.
    public var searches = true
    /// Discovery that hears nothing at all from any device this long, while devices are
    /// expected, starts the recovery ladder (`scan_watchdog`; nil: off). See ``RecoveryLadder``.
    public var scanWatchdog: Duration?
    /// Whether the ladder's last step may reset the controller with libbluetooth's HCI calls
    /// (`adapter_reset`; needs `CAP_NET_ADMIN`).
    public var adapterReset: Bool

    /// The most devices a monitor's table holds by default (`max_devices`, `advert_max_devices`).
    public static let defaultMaxDevices = 1024

    /// Creates a configuration with the defaults that suit the Pi thermometer.
    public init(
        names: [String] = [PiCPUTemperatureProfile.advertisedLocalName], profiles: ProfileRegistry = .standard,
        reconnect: ReconnectPolicy = ReconnectPolicy(), connectTimeout: Duration = .seconds(15),
        dataTimeout: Duration = .seconds(16), serviceTimeout: Duration = .seconds(30),
        rescanInterval: Duration = .seconds(8), seenReportInterval: Duration = .seconds(10),
        discoveryWindow: Duration = .seconds(20), rescanPeriod: Duration = .seconds(20),
        rescanWindow: Duration = .seconds(8), scanPauseLimit: Duration = .seconds(3),
        connectBatchWindow: Duration = .seconds(1), maxConnecting: Int = 1, maxConnections: Int = 5,
        maxDevices: Int = defaultMaxDevices, scanWatchdog: Duration? = .seconds(90), adapterReset: Bool = false
    ) {
        self.names = names
        self.profiles = profiles
        self.reconnect = reconnect
        self.connectTimeout = connectTimeout
        self.dataTimeout = dataTimeout
        self.serviceTimeout = serviceTimeout
        self.rescanInterval = rescanInterval
        self.seenReportInterval = seenReportInterval
        self.discoveryWindow = discoveryWindow
        self.rescanPeriod = rescanPeriod
        self.rescanWindow = rescanWindow
        self.scanPauseLimit = scanPauseLimit
        self.connectBatchWindow = connectBatchWindow
        self.maxConnecting = maxConnecting
        self.maxConnections = maxConnections
        self.maxDevices = maxDevices
        self.scanWatchdog = scanWatchdog
        self.adapterReset = adapterReset
    }
}

extension ThermometerConfiguration {
    /// The monitor's settings, in the order help lists them; the defaults are the initialiser's.
    public static let settings: [Setting<Self>] =
        [
            .list("names", flag: "name", "NAME", "Advertised name marking a thermometer (repeatable)", at: \.names) {
                $0
            }
            .documented(
                "The advertised local names that mark a thermometer.",
                shown: { $0.names.joined(separator: ", ") }),
            .boolean(
                "gatt_thermometers", "Look for GATT thermometers and connect to them (no: advertising sensors only)",
                at: \.searches
            )
            .documented(
                "Look for GATT thermometers (by *names* and *service_uuids*) and connect to them. _no_ "
                    + "reads advertising sensors only: no discovery of its own for the search, no connections; with "
                    + "passive scanning (*scan_mode*) discovery then stays off."),
        ] + ReconnectPolicy.settings.map { $0.lifted(into: \.reconnect) } + [
            .integer(
                "max_connecting", "N", "Connection attempts under way at once", at: \.maxConnecting, within: 1...64
            )
            .documented(
                "Connection attempts under way at once, 1 to 64 (controllers connect one device at a "
                    + "time). Thermometers wait their turn; those that worked before go first."),
            .integer(
                "max_connections", "N", "Links held at once on each adapter", at: \.maxConnections, within: 1...1000
            )
            .documented(
                "Links held at once on each adapter, 1 to 1000: the slot count most controllers handle well. "
                    + "With several adapters (*adapters*), each holds up to _N_, and a thermometer connects through "
                    + "the adapter that hears it best while that one has a link free, else through the next best with "
                    + "one free (sensor memory downloads take the same links). Thermometers that worked before keep a "
                    + "link reserved on the adapter of their last one and go first; a thermometer for which no adapter "
                    + "hearing it has a link left is logged and reported (a _disconnected_ event whose reason begins "
                    + "\"left out\")."),
            .value(
                "scan_watchdog", "DURATION",
                "Discovery hearing nothing this long starts the recovery ladder (0 or off: never)", at: \.scanWatchdog
            ) { text throws(SettingError) in
                ["0", "off", "no"].contains(text.lowercased())
                    ? nil : try ValueParser.duration(text, within: .seconds(1)...Duration.seconds(86400))
            }
            .documented(
                "While discovery runs and devices are expected, hearing nothing at all from any device "
                    + "this long starts the recovery ladder (README, \"Recovery ladder\"): discovery is restarted; if it "
                    + "stays silent as long again, the adapter is switched off and on (_Adapter1.Powered_); then, with "
                    + "*adapter_reset*, the controller is reset below bluetoothd. The ladder starts over with longer "
                    + "waits (up to 32 times this) while the silence lasts. 1 s to 1 day; _0_, _off_ or _no_ turns it off.",
                shown: { $0.scanWatchdog.map(DurationText.spelling) ?? "off" }),
            .boolean(
                "adapter_reset", "Let the recovery ladder reset the controller (HCI; needs CAP_NET_ADMIN)",
                at: \.adapterReset
            )
            .documented(
                "Let the recovery ladder's last step reset the controller with libbluetooth's HCI calls "
                    + "(HCI down and up). This needs *CAP_NET_ADMIN*, which the unit grants only with the drop-in "
                    + "_blectld-adapter-reset.conf_."),
        ]
}
