/// How discovery listens for advertising sensors (`scan_mode`).
public enum ScanMode: String, Sendable, Equatable, CaseIterable {
    /// Passive when the adapter offers advertisement monitors and no format read needs scan
    /// responses (Govee does); active otherwise.
    case auto
    /// `StartDiscovery`, kept on: the controller asks every advertiser for its scan response.
    case active
    /// BlueZ's `AdvertisementMonitorManager1` (experimental in BlueZ 5.66: present only with
    /// `bluetoothd --experimental`): the controller listens without asking for scan
    /// responses. Active, with a warning, where the adapter does not offer it.
    case passive

    /// The mode to use on an adapter: `passiveAvailable` when it offers advertisement
    /// monitors, `needsActive` when a format read sends its data in scan responses.
    public func resolved(passiveAvailable: Bool, needsActive: Bool) -> ScanMode {
        switch self {
        case .active: .active
        case .auto: passiveAvailable && !needsActive ? .passive : .active
        case .passive: passiveAvailable ? .passive : .active
        }
    }
}
