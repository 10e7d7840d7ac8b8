public import SensorModel

/// The GATT thermometers: connected, subscribed and read as the configuration says.
extension ThermometerMonitor: SensorSource {
    /// `"gatt"`.
    public nonisolated var sourceName: String { "gatt" }

    /// How long the daemon's shutdown gives the clean-up calls (``shutdown(within:)``): well
    /// inside systemd's default stop timeout, with the outputs' own flush after it.
    public static let shutdownBudget: Duration = .seconds(3)

    /// Stops every session within ``shutdownBudget``.
    public func shutdown() async {
        await shutdown(within: Self.shutdownBudget)
    }
}

/// The advertising sensors, decoded from what the adapter hears.
extension AdvertisingSensorMonitor: SensorSource {
    /// `"advertisements"`.
    public nonisolated var sourceName: String { "advertisements" }
}
