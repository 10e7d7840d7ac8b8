public import SensorModel
public import ThermometerProfiles

/// What the advertisement monitor reads, from whom, and how often it reports.
public struct AdvertisementConfiguration: Sendable {
    /// Which devices are read.
    public enum Devices: Sendable, Equatable {
        /// Every device whose advertisements a profile decodes (`advert_devices = all`).
        case all
        /// Only these addresses.
        case only(Set<BluetoothAddress>)

        /// Whether `address` is read.
        public func admits(_ address: BluetoothAddress) -> Bool {
            switch self {
            case .all: true
            case .only(let addresses): addresses.contains(address)
            }
        }
    }

    /// The formats decoded (`advert_profiles`).
    public var registry: AdvertisementRegistry
    /// The keys of sensors that encrypt their advertisements, one per device whatever its format.
    public var keys: [BluetoothAddress: AdvertisementKey]
    /// Which devices are read (`advert_devices`).
    public var devices: Devices
    /// At most one reading per device this often; zero: every new measurement
    /// (`advert_min_interval`).
    public var minInterval: Duration
    /// A device is lost when nothing was heard for the larger of this and its own largest
    /// gap among its last 16 advertisements plus ``staleMargin`` (`advert_stale_after`).
    public var staleAfter: Duration
    /// Added to a device's largest recent gap to make its staleness.
    public var staleMargin: Duration
    /// Devices tracked; the one unseen longest is forgotten first (`advert_max_devices`).
    public var maxDevices: Int
    /// A format without a counter (Govee) gives a reading when its payload changes, and
    /// at least this often while it is heard unchanged (so outputs see it is alive).
    public var unchangedRefresh: Duration
    /// How the sensors are listened to (`scan_mode`).
    public var scanMode: ScanMode = .auto
    /// Where advertisements are heard from (`advert_source`): the management socket where it
    /// opens (proven against real BlueZ in the e2e rig's scenario 7), else BlueZ's signals.
    public var source: AdvertisementSource = .auto

    /// Creates a configuration; the defaults read every format from every device.
    public init(
        registry: AdvertisementRegistry = .standard, keys: [BluetoothAddress: AdvertisementKey] = [:],
        devices: Devices = .all, minInterval: Duration = .zero, staleAfter: Duration = .seconds(60),
        staleMargin: Duration = .seconds(5), maxDevices: Int = ThermometerConfiguration.defaultMaxDevices,
        unchangedRefresh: Duration = .seconds(30)
    ) {
        self.registry = registry
        self.keys = keys
        self.devices = devices
        self.minInterval = minInterval
        self.staleAfter = staleAfter
        self.staleMargin = staleMargin
        self.maxDevices = maxDevices
        self.unchangedRefresh = unchangedRefresh
    }
}

/// The advertisement monitor's counts, for `status`.
public struct AdvertisementStatistics: Sendable, Equatable {
    /// One tracked sensor.
    public struct Sensor: Sendable, Equatable {
        /// Its address.
        public var address: BluetoothAddress
        /// The profile of its last reading.
        public var profile: ProfileID?
        /// Readings reported.
        public var readings: Int
        /// Measurements missed: gaps in its counter.
        public var lostPackets: Int
        /// How long it may stay silent before it is lost, as learned now.
        public var staleAfter: Duration
        /// Whether it is lost (silent for longer than that).
        public var lost: Bool
        /// How long ago it was last heard.
        public var silentFor: Duration = .zero
        /// Its advertising interval, as learned from its recent gaps.
        public var interval: Duration?
        /// How its misses are counted; nil before its first reading (or, scanning passively,
        /// for a sensor without a counter: nothing is counted).
        public var countedBy: ReceptionBasis?
        /// Measurements (by counter) or advertisements (by interval) heard since first heard.
        public var received = 0
        /// Measurements or advertisements it sent and nobody heard.
        public var missed = 0
        /// ``received`` over the last hour (55 to 60 minutes: five-minute buckets).
        public var receivedLastHour = 0
        /// ``missed`` over the last hour.
        public var missedLastHour = 0
        /// What each adapter hears of it (one entry per adapter that heard it).
        public var heardBy: [Hearing] = []
    }

    /// What one adapter hears of a sensor.
    public struct Hearing: Sendable, Equatable {
        /// The adapter's interface name (`hci1`).
        public var adapter: String
        /// The last RSSI it reported, in dBm.
        public var rssi: Int?
        /// How long ago it last heard the sensor.
        public var silentFor: Duration
    }

    /// The scanning in use: ``ScanMode/active`` or ``ScanMode/passive``.
    public var scanMode = ScanMode.active
    /// Advertisements with data a profile reads.
    public var advertisements = 0
    /// Readings reported.
    public var readings = 0
    /// Advertisements that repeated a measurement already reported (or were over the rate).
    public var duplicates = 0
    /// Measurements missed, by the sensors' counters.
    public var lostPackets = 0
    /// Reading errors reported.
    public var errors = 0
    /// Sensors forgotten to make room (`advert_max_devices`).
    public var forgotten = 0
    /// The sensors tracked now, by address.
    public var sensors: [Sensor] = []

    /// No counts.
    public init() {}
}
