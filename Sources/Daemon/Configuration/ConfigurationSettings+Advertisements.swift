public import Central
public import SensorModel

extension ConfigurationSetting {
    /// The advertisement sensors' settings (`scan_mode`, `advert_*`) and the gateway's own
    /// CPU temperature (`host_cpu*`).
    static let advertisements: [ConfigurationSetting] = [
        single("scan_mode", flag: "scan-mode", "MODE", "Scanning for advertising sensors: auto, active or passive") {
            config, value throws(SettingError) in
            guard let mode = ScanMode(rawValue: value) else {
                throw SettingError("expected auto, active or passive, got '\(value)'")
            }
            config.advertisements.scanMode = mode
        },
        ConfigurationSetting(
            key: "advert_profiles", flag: nil, kind: .list, valueName: "PROFILE",
            help: "Advertisement formats read: all, none, or a list (\(AdvertisementSettings.profileNames))"
        ) { config, values throws(SettingError) in
            config.advertisements.profiles = try AdvertisementSettings.parseProfiles(values)
        },
        single("advert_min_interval", flag: nil, "DURATION", "At most one reading per sensor this often (0: every one)")
        { config, value throws(SettingError) in
            config.advertisements.minInterval = try ValueParser.duration(value, within: .zero...Duration.seconds(86400))
        },
        single("advert_stale_after", flag: nil, "DURATION", "A silent sensor is lost after at least this long") {
            config, value throws(SettingError) in
            config.advertisements.staleAfter = try ValueParser.duration(
                value, within: .seconds(1)...Duration.seconds(86400))
        },
        ConfigurationSetting(
            key: "advert_devices", flag: nil, kind: .list, valueName: "ADDRESS",
            help: "Advertising sensors read: all, or a list of addresses"
        ) { config, values throws(SettingError) in
            config.advertisements.devices = try AdvertisementSettings.parseDevices(values)
        },
        single("advert_max_devices", flag: nil, "N", "Advertising sensors tracked; the one unheard longest goes first")
        {
            config, value throws(SettingError) in
            config.advertisements.maxDevices = try ValueParser.integer(value, within: 16...100_000)
        },
        ConfigurationSetting(
            key: "host_cpu", flag: "host-cpu", kind: .boolean, valueName: "",
            help: "Report this machine's CPU temperature as a device of its own"
        ) { config, values throws(SettingError) in
            config.advertisements.hostCPU = try ValueParser.boolean(values[0])
        },
        single("host_cpu_interval", flag: nil, "DURATION", "How often the CPU temperature is read") {
            config, value throws(SettingError) in
            config.advertisements.hostCPUInterval = try ValueParser.duration(
                value, within: .seconds(1)...Duration.seconds(86400))
        },
        single("host_cpu_zone", flag: nil, "DIR", "The thermal zone read: auto, or a zone's directory") {
            config, value throws(SettingError) in
            guard value == "auto" || value.hasPrefix("/") else {
                throw SettingError("expected auto or an absolute directory, got '\(value)'")
            }
            config.advertisements.hostCPUZone = value
        },
    ]
}

/// The advertisement sensors' settings and the host CPU source's.
public struct AdvertisementSettings: Equatable, Sendable {
    /// `scan_mode`.
    public var scanMode = ScanMode.auto
    /// `advert_profiles`: the ids of the formats read; nil for all of them.
    public var profiles: [ProfileID]?
    /// `advert_min_interval`.
    public var minInterval: Duration = .zero
    /// `advert_stale_after`.
    public var staleAfter: Duration = .seconds(60)
    /// `advert_devices`: nil for every sensor.
    public var devices: Set<BluetoothAddress>?
    /// `advert_max_devices`.
    public var maxDevices = 1024
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
