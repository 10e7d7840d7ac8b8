public import Central
public import SensorModel
import UnixSupport

extension Setting<DaemonConfiguration> {
    /// The advertisement sensors' settings (`scan_mode`, `advert_*`) and the gateway's own
    /// CPU temperature (`host_cpu*`).
    static let advertisements: [ConfigurationSetting] = AdvertisementSettings.settings.map {
        $0.lifted(into: \.advertisements)
    }
}

extension AdvertisementSettings {
    /// The settings, in the order help lists them; the defaults are the properties'.
    static let settings: [Setting<Self>] = [
        .value(
            "scan_mode", flag: "scan-mode", "MODE", "Scanning for advertising sensors: auto, active or passive",
            at: \.scanMode
        ) { text throws(SettingError) in
            guard let mode = ScanMode(rawValue: text) else {
                throw SettingError("expected auto, active or passive, got '\(text)'")
            }
            return mode
        },
        .list(
            "advert_profiles", "PROFILE", "Advertisement formats read: all, none, or a list (\(profileNames))",
            at: \.profiles, parse: parseProfiles),
        .duration(
            "advert_min_interval", "DURATION", "At most one reading per sensor this often (0: every one)",
            at: \.minInterval, within: .zero...Duration.seconds(86400)),
        .duration(
            "advert_stale_after", "DURATION", "A silent sensor is lost after at least this long", at: \.staleAfter,
            within: .seconds(1)...Duration.seconds(86400)),
        .optional(
            "key_file", flag: "key-file", "PATH",
            "A file of sensor keys, one 'ADDRESS = HEX' a line, that only root and blectld's group may read",
            at: \.keyFile
        ) { text throws(SettingError) in
            guard text.hasPrefix("/") else { throw SettingError("the key file must be absolute, got '\(text)'") }
            return text
        },
        .list(
            "advert_devices", "ADDRESS", "Advertising sensors read: all, or a list of addresses", at: \.devices,
            parse: parseDevices),
        .integer(
            "advert_max_devices", "N", "Advertising sensors tracked; the one unheard longest goes first",
            at: \.maxDevices, within: 16...100_000),
        .boolean(
            "host_cpu", flag: "host-cpu", "Report this machine's CPU temperature as a device of its own", at: \.hostCPU),
        .duration(
            "host_cpu_interval", "DURATION", "How often the CPU temperature is read", at: \.hostCPUInterval,
            within: .seconds(1)...Duration.seconds(86400)),
        .value("host_cpu_zone", "DIR", "The thermal zone read: auto, or a zone's directory", at: \.hostCPUZone) {
            text throws(SettingError) in
            guard text == "auto" || text.hasPrefix("/") else {
                throw SettingError("expected auto or an absolute directory, got '\(text)'")
            }
            return text
        },
    ]
}

/// The advertisement sensors' settings and the host CPU source's.
public struct AdvertisementSettings: Equatable, Sendable {
    /// The advertisement monitor's defaults, which these settings start from.
    static let monitorDefaults = AdvertisementConfiguration()

    /// `scan_mode`.
    public var scanMode = monitorDefaults.scanMode
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
