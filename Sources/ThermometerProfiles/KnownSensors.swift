public import SensorModel

/// The sensor families this daemon knows: every profile of the standard registries and the
/// gateway's own CPU.
///
/// Adding a family is its profile's file plus its line in ``ProfileRegistry/standard`` (a
/// GATT thermometer) or ``AdvertisementRegistry/standard`` (an advertising sensor): this
/// catalog, and through it every output, learns the rest from the profile's
/// ``SensorFamily`` declaration.
public enum KnownSensors {
    /// Every known family, GATT thermometers first, then advertisement formats in lookup order.
    public static let catalog = SensorCatalog(
        ProfileRegistry.standard.profiles.map(\.family) + AdvertisementRegistry.standard.profiles.map(\.family)
            + [HostCPUProfile.family])
}
