public import SensorModel

/// The advertisement sensors' part of `status`: how discovery listens and what it heard.
public struct AdvertisementStatus: Codable, Equatable, Sendable {
    /// One sensor tracked.
    public struct Sensor: Codable, Equatable, Sendable {
        /// Its address.
        public var address: BluetoothAddress
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
        /// When it was last heard (absent from daemons before the reception counts).
        public var lastHeard: Timestamp?
        /// Its advertising interval as learned from its recent gaps (seconds), once known.
        public var interval: Double?
        /// How its misses are counted: `counter` (gaps in its own counter) or `interval`
        /// (advertisements its interval says were sent and were not heard); absent while
        /// nothing is counted (no reading yet, or no counter while scanning passively).
        public var countedBy: String?
        /// Measurements (by counter) or advertisements (by interval) heard since blectld first heard it.
        public var received: Int?
        /// Measurements or advertisements it sent that were not heard.
        public var missed: Int?
        /// ``received`` over the last hour.
        public var receivedLastHour: Int?
        /// ``missed`` over the last hour.
        public var missedLastHour: Int?
        /// The last hour's received / (received + missed), 0 to 1; absent when nothing was counted.
        public var ratioLastHour: Double?
        /// What each adapter hears of it (several adapters: one entry per adapter that
        /// heard it); absent before the first.
        public var adapters: [AdapterHearing]?

        /// Creates an entry.
        public init(
            address: BluetoothAddress, profile: String?, readings: Int, lostPackets: Int, staleAfter: Double, lost: Bool
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
            case lastHeard = "last_heard"
            case interval
            case countedBy = "counted_by"
            case received, missed
            case receivedLastHour = "received_last_hour"
            case missedLastHour = "missed_last_hour"
            case ratioLastHour = "ratio_last_hour"
            case adapters
        }

        /// Sets the reception counts, and the last hour's ratio from them (to four places).
        public mutating func setReception(
            countedBy: String?, received: Int, missed: Int, receivedLastHour: Int, missedLastHour: Int
        ) {
            self.countedBy = countedBy
            (self.received, self.missed) = (received, missed)
            (self.receivedLastHour, self.missedLastHour) = (receivedLastHour, missedLastHour)
            let heard = receivedLastHour + missedLastHour
            ratioLastHour =
                countedBy == nil || heard == 0
                ? nil : (Double(receivedLastHour) / Double(heard) * 10_000).rounded() / 10_000
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

/// What one adapter hears of a device: its RSSI and when it last heard it.
public struct AdapterHearing: Codable, Equatable, Sendable {
    /// The adapter's interface name (`hci1`).
    public var adapter: String
    /// The last RSSI it reported, in dBm.
    public var rssi: Int?
    /// When it last heard the device; absent when not known.
    public var lastHeard: Timestamp?

    /// Creates an entry.
    public init(adapter: String, rssi: Int?, lastHeard: Timestamp? = nil) {
        self.adapter = adapter
        self.rssi = rssi
        self.lastHeard = lastHeard
    }

    private enum CodingKeys: String, CodingKey {
        case adapter, rssi
        case lastHeard = "last_heard"
    }
}
