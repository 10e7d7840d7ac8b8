/// The advertisement sensors' part of `status`: how discovery listens and what it heard.
public struct AdvertisementStatus: Codable, Equatable, Sendable {
    /// One sensor tracked.
    public struct Sensor: Codable, Equatable, Sendable {
        /// Its address.
        public var address: String
        /// The profile of its last reading, e.g. `bthome`.
        public var profile: String?
        /// Readings reported since the daemon started.
        public var readings: Int
        /// Measurements missed, by gaps in the sensor's own counter.
        public var lostPackets: Int
        /// How long it may stay silent before it is lost (seconds), as learned from its gaps.
        public var staleAfter: Double
        /// Whether it is lost now.
        public var lost: Bool

        /// Creates an entry.
        public init(
            address: String, profile: String?, readings: Int, lostPackets: Int, staleAfter: Double, lost: Bool
        ) {
            self.address = address
            self.profile = profile
            self.readings = readings
            self.lostPackets = lostPackets
            self.staleAfter = staleAfter
            self.lost = lost
        }

        private enum CodingKeys: String, CodingKey {
            case address, profile, readings, lost
            case lostPackets = "lost_packets"
            case staleAfter = "stale_after"
        }
    }

    /// The scanning in use: `active` (or `passive`).
    public var scanMode: String
    /// Advertisements carrying data a profile reads.
    public var advertisements: Int
    /// Readings reported.
    public var readings: Int
    /// Advertisements that repeated a measurement already reported, or came within
    /// `advert_min_interval`.
    public var duplicates: Int
    /// Measurements missed, by the sensors' counters.
    public var lostPackets: Int
    /// Reading errors reported.
    public var errors: Int
    /// Sensors forgotten to stay within `advert_max_devices`.
    public var forgotten: Int
    /// The sensors tracked now, by address.
    public var sensors: [Sensor]

    /// Creates a status.
    public init(
        scanMode: String, advertisements: Int, readings: Int, duplicates: Int, lostPackets: Int, errors: Int,
        forgotten: Int, sensors: [Sensor]
    ) {
        self.scanMode = scanMode
        self.advertisements = advertisements
        self.readings = readings
        self.duplicates = duplicates
        self.lostPackets = lostPackets
        self.errors = errors
        self.forgotten = forgotten
        self.sensors = sensors
    }

    private enum CodingKeys: String, CodingKey {
        case advertisements, readings, duplicates, errors, forgotten, sensors
        case scanMode = "scan_mode"
        case lostPackets = "lost_packets"
    }
}
