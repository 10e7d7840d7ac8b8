/// How discovery listens (`scan_mode`).
public enum ScanMode: String, Sendable, Equatable, CaseIterable {
    /// Active unless passive scanning is available and no format needs scan responses; BlueZ
    /// 5.66 offers passive scanning only with `--experimental`, and blectl does not use it
    /// yet, so this is active scanning today.
    case auto
    /// `StartDiscovery`: the controller asks every advertiser for its scan response.
    case active

    /// The mode in use for `auto`: active (see ``auto``).
    public var resolved: ScanMode { .active }
}
