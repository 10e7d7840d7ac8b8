/// Where the advertisement monitor hears advertisements from (`advert_source`).
public enum AdvertisementSource: String, Sendable, Equatable, CaseIterable {
    /// The management socket when it opens, else BlueZ's D-Bus signals (with one line in the
    /// log); the default.
    case auto
    /// BlueZ's D-Bus signals (`PropertiesChanged` of each device).
    case dbus
    /// The kernel's Bluetooth management socket (`MGMT_EV_DEVICE_FOUND`): no D-Bus message per
    /// advertisement, and every advertisement, changed or not. Needs CAP_NET_ADMIN and
    /// CAP_NET_RAW; blectld does not start without it.
    case mgmt
}
