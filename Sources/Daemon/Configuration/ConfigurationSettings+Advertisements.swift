public import Central
public import SensorModel
import UnixSupport

extension AdvertisementSettings {
    /// The advertising sensors' settings (`scan_mode`, `advert_*`, `key_file`), in the order
    /// help lists them; the defaults are the properties'.
    static let sensorSection = SettingSection<Self>(
        "Advertising sensors",
        introduction: "Sensors that broadcast their readings in advertisements are read without a connection: "
            + "BTHome v2 and v1 (plain and encrypted, see *bthome_key* below), Xiaomi MiBeacon (the stock firmware, "
            + "plain and encrypted, see *mibeacon_key*), Qingping, ThermoBeacon, Inkbird, ThermoPro, SwitchBot, "
            + "SensorPush, pvvx (plain, and encrypted with the firmware's bind key, given as *bthome_key*), "
            + "ATC1441, RuuviTag (data format 5), and Govee (H5051, H5052, H5071, H5072, H5074, H5075, "
            + "H5100-H5106, H5108, H5110, H5174, H5177, H5179, B5178). While any format is read, discovery stays "
            + "on (BlueZ's filter _Transport=le_, _DuplicateData=true_), paused only while a GATT thermometer "
            + "connects. See _advertisements.md_.", sensorSettings)

    /// The advertising sensors' settings, in the order help lists them.
    static let sensorSettings: [Setting<Self>] = [
        .value(
            "scan_mode", flag: "scan-mode", "MODE", "Scanning for advertising sensors: auto, active or passive",
            at: \.scanMode
        ) { text throws(SettingError) in
            guard let mode = ScanMode(rawValue: text) else {
                throw SettingError("expected auto, active or passive, got '\(text)'")
            }
            return mode
        }.documented(scanModeDetails, shown: { $0.scanMode.rawValue }),
        .value(
            "advert_source", flag: "advert-source", "SOURCE",
            "Where advertisements are heard from: auto, dbus or mgmt", at: \.source
        ) { text throws(SettingError) in
            guard let source = AdvertisementSource(rawValue: text) else {
                throw SettingError("expected auto, dbus or mgmt, got '\(text)'")
            }
            return source
        }.documented(sourceDetails, shown: { $0.source.rawValue }),
        .list(
            "advert_profiles", "PROFILE", "Advertisement formats read: all, none, or a list (\(profileNames))",
            at: \.profiles, parse: parseProfiles
        ).documented(
            profilesDetails, shown: { $0.profiles.map { $0.map(\.rawValue).joined(separator: ", ") } ?? "all" }),
        .duration(
            "advert_min_interval", "DURATION", "At most one reading per sensor this often (0: every one)",
            at: \.minInterval, within: .zero...Duration.seconds(86400)
        ).documented(
            "At most one reading per sensor this often, 0 to 1 day; 0 reports every new measurement, told "
                + "apart by the sensor's own counter."),
        .duration(
            "advert_stale_after", "DURATION", "A silent sensor is lost after at least this long", at: \.staleAfter,
            within: .seconds(1)...Duration.seconds(86400)
        ).documented(
            "A sensor is lost (a _peripheral_lost_ event) when silent for the larger of this and its own "
                + "largest gap among its last 16 advertisements plus 5 s. 1 s to 1 day."),
        .optional(
            "key_file", flag: "key-file", "PATH",
            "A file of sensor keys, one 'ADDRESS = HEX' a line, that only root and blectld's group may read",
            at: \.keyFile
        ) { text throws(SettingError) in
            guard text.hasPrefix("/") else { throw SettingError("the key file must be absolute, got '\(text)'") }
            return text
        }.documented(
            "A file of sensor keys besides the *bthome_key* and *mibeacon_key* lines: one _ADDRESS_ = _HEX_ a "
                + "line (32 hex digits, or 24 for MiBeacon v2/v3), _#_ comments and blank lines allowed; one "
                + "key per device over every source. systemd can pass one as the credential _blectl-keys_ "
                + "(*LoadCredential=blectl-keys:/etc/blectl/keys* in a drop-in), which blectld reads from "
                + "*$CREDENTIALS_DIRECTORY*. A key file, a credential, or this file when it holds keys, that "
                + "every user can read is refused (exit 78, naming the file and its mode): *chown "
                + "root:blectld* _FILE_; *chmod 640* _FILE_. Default none."),
        .list(
            "advert_devices", "ADDRESS", "Advertising sensors read: all, or a list of addresses", at: \.devices,
            parse: parseDevices
        ).documented(
            "The sensors read: _all_ (every sensor a format decodes), or a list of addresses.",
            shown: { $0.devices.map { $0.map { "\($0)" }.sorted().joined(separator: ", ") } ?? "all" }),
        .integer(
            "advert_max_devices", "N", "Advertising sensors tracked; the one unheard longest goes first",
            at: \.maxDevices, within: 16...100_000
        ).documented("Advertising sensors tracked, 16 to 100000; the one unheard longest is forgotten first."),
    ]

    /// The gateway's own CPU temperature as a device (`host_cpu*`).
    static let hostCPUSection = SettingSection<Self>("The host's CPU", hostCPUSettings)

    /// The host CPU device's settings, in the order help lists them.
    static let hostCPUSettings: [Setting<Self>] = [
        .boolean(
            "host_cpu", flag: "host-cpu", "Report this machine's CPU temperature as a device of its own",
            at: \.hostCPU
        ).documented(
            "Add this machine's own CPU temperature as a device of its own (profile _host-cpu_, named after "
                + "the host: \"pi CPU\"), read from a thermal zone. Its address is derived from "
                + "_/etc/machine-id_. A machine without a thermal zone says so at start and no device appears."),
        .duration(
            "host_cpu_interval", "DURATION", "How often the CPU temperature is read", at: \.hostCPUInterval,
            within: .seconds(1)...Duration.seconds(86400)
        ).documented("How often the CPU temperature is read, 1 s to 1 day."),
        .value("host_cpu_zone", "DIR", "The thermal zone read: auto, or a zone's directory", at: \.hostCPUZone) {
            text throws(SettingError) in
            guard text == "auto" || text.hasPrefix("/") else {
                throw SettingError("expected auto or an absolute directory, got '\(text)'")
            }
            return text
        }.documented(
            "The thermal zone read: _auto_, the zone of _/sys/class/thermal_ whose type names the CPU or SoC "
                + "(_cpu-thermal_ on a Pi, _x86_pkg_temp_), else the first; or a zone's absolute directory "
                + "(_/sys/class/thermal/thermal_zone1_)."),
    ]

    /// `scan_mode`'s details, naming the formats whose data comes in scan responses (passive
    /// scanning hears none of them).
    private static var scanModeDetails: String {
        let names = italic(AdvertisementRegistry.standard.profiles.filter(\.needsActiveScanning).map(\.id.rawValue))
        return """
            _auto_, _active_ or _passive_. _passive_ registers an advertisement monitor with BlueZ's \
            AdvertisementMonitorManager1 (offered only by *bluetoothd --experimental*) on every \
            adapter in use: no scan responses, so none of the formats that send their data in them: \
            \(names). Where an adapter lacks it or refuses it, a warning and active scanning (on \
            every adapter). _auto_ is passive where offered and none \
            of those is read, else active; the mode in use is in *blectl status*. While no GATT \
            thermometer is connected, the search for one still scans actively, unless \
            *gatt_thermometers* = _no_.
            """
    }

    /// `advert_source`'s details.
    private static let sourceDetails = """
        _auto_, _dbus_ or _mgmt_. _dbus_ hears advertisements through bluetoothd's D-Bus signals \
        (a _PropertiesChanged_ message per advertisement, and none for an advertisement whose data \
        did not change). _mgmt_ listens to the kernel's Bluetooth management socket \
        (_MGMT_EV_DEVICE_FOUND_, as Home Assistant does) while bluetoothd keeps running the \
        discovery: every advertisement, without a D-Bus message; it needs *CAP_NET_ADMIN* and \
        *CAP_NET_RAW* (the drop-in _blectld-mgmt.conf_ grants them), and blectld does not start \
        without them. _auto_ (the default) is _mgmt_ when the socket opens, else _dbus_ with one \
        line in the log (under the shipped unit, which grants no capability: _dbus_). \
        While scanning passively (*scan_mode*), advertisements come through D-Bus whatever the source.
        """

    /// `advert_profiles`' details, naming every format in lookup order.
    private static var profilesDetails: String {
        let names = italic(knownProfiles.map(\.rawValue))
        return """
            The formats read: _all_, _none_ (no advertising sensors; discovery runs in windows only), \
            or a list of these, in lookup order: \(names). An empty value means _none_.
            """
    }

    /// `_a_, _b_`: names in the details' markup.
    private static func italic(_ names: [String]) -> String {
        names.map { "_\($0)_" }.joined(separator: ", ")
    }
}

/// The advertisement sensors' settings and the host CPU source's.
public struct AdvertisementSettings: Equatable, Sendable {
    /// The advertisement monitor's defaults, which these settings start from.
    static let monitorDefaults = AdvertisementConfiguration()

    /// `scan_mode`.
    public var scanMode = monitorDefaults.scanMode
    /// `advert_source`.
    public var source = monitorDefaults.source
    /// `advert_profiles`: the ids of the formats read; nil for all of them.
    public var profiles: [ProfileID]?
    /// `advert_min_interval`.
    public var minInterval = monitorDefaults.minInterval
    /// `advert_stale_after`.
    public var staleAfter = monitorDefaults.staleAfter
    /// `key_file`: a file of keys besides the configuration's `bthome_key` and `mibeacon_key`.
    public var keyFile: String?
    /// `advert_devices`: nil for every sensor.
    public var devices: Set<BluetoothAddress>?
    /// `advert_max_devices`.
    public var maxDevices = monitorDefaults.maxDevices
    /// `host_cpu`.
    public var hostCPU = false
    /// `host_cpu_interval`.
    public var hostCPUInterval: Duration = .seconds(30)
    /// `host_cpu_zone`: `auto`, or a thermal zone's directory.
    public var hostCPUZone = "auto"

    /// The defaults: every format from every sensor, no host CPU device.
    public init() {}

    /// Whether any advertisement format is read (then discovery stays on).
    public var isEnabled: Bool { profiles.map { !$0.isEmpty } ?? true }

    /// The formats known, by id.
    static var knownProfiles: [ProfileID] { AdvertisementRegistry.standard.profiles.map(\.id) }
    static var profileNames: String { knownProfiles.map(\.rawValue).joined(separator: ", ") }

    static func parseProfiles(_ values: [String]) throws(SettingError) -> [ProfileID]? {
        if values == ["all"] { return nil }
        if values == ["none"] || values.isEmpty { return [] }
        var ids: [ProfileID] = []
        for value in values {
            let id = ProfileID(rawValue: value)
            guard knownProfiles.contains(id) else {
                throw SettingError("unknown advertisement format '\(value)' (use all, none, or \(profileNames))")
            }
            ids.append(id)
        }
        return ids
    }

    static func parseDevices(_ values: [String]) throws(SettingError) -> Set<BluetoothAddress>? {
        if values == ["all"] { return nil }
        var addresses: Set<BluetoothAddress> = []
        for value in values {
            guard let address = BluetoothAddress(value) else {
                throw SettingError(
                    "not a Bluetooth address: '\(value)' (use all, or addresses such as A4:C1:38:00:00:01)")
            }
            addresses.insert(address)
        }
        return addresses
    }
}
