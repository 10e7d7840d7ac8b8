import SensorModel
import UnixSupport

/// What the thermometer monitor remembers of the devices it heard, at most `capacity`: the
/// one unseen longest is forgotten first, thermometers known to work and those holding a
/// link aside.
struct DeviceMemory {
    /// What is remembered of one device.
    struct Note {
        /// Its advertised name, remembered because BlueZ replaces it by the GAP name on connect.
        var name: String?
        /// When it was last reported seen.
        var lastSeenReport: ContinuousClock.Instant?
    }

    private var notes: RecencyTable<BluetoothAddress, Note>
    /// Report a device already seen again at most this often (RSSI updates come often).
    private let seenReportInterval: Duration
    /// Sightings before this instant are reported again (a `scan` request asks for everyone).
    private var sightingsReportedSince: ContinuousClock.Instant?

    init(capacity: Int, seenReportInterval: Duration) {
        notes = RecencyTable(capacity: capacity)
        self.seenReportInterval = seenReportInterval
    }

    /// What is known of `address`, without making it the most recently seen.
    subscript(address: BluetoothAddress) -> Note? { notes[address] }

    /// The name `address` advertised, if it was heard.
    func name(of address: BluetoothAddress) -> String? { notes[address]?.name }

    /// Every device remembered.
    var addresses: [BluetoothAddress] { notes.keys }

    /// The device went away: its next sighting is reported at once.
    mutating func lost(_ address: BluetoothAddress) {
        notes.modify(address) { $0.lastSeenReport = nil }
    }

    /// Everyone heard from `now` on is reported again, not only newcomers.
    mutating func reportEveryoneAgain(from now: ContinuousClock.Instant) {
        sightingsReportedSince = now
    }

    /// Whether a sighting is due (at most one per `seenReportInterval`); notes it in `note`.
    func shouldReportSighting(_ note: inout Note, at now: ContinuousClock.Instant) -> Bool {
        if let last = note.lastSeenReport, now - last < seenReportInterval,
            sightingsReportedSince.map({ last >= $0 }) ?? true
        {
            return false
        }
        note.lastSeenReport = now
        return true
    }

    /// Keeps `note` as the most recently seen; when the table is full, forgets the device
    /// unseen longest and returns its address: one that `inUse` spares if there is any,
    /// else one of those, but never one that `kept` keeps.
    mutating func remember(
        _ address: BluetoothAddress, _ note: Note, kept: (BluetoothAddress) -> Bool,
        inUse: (BluetoothAddress) -> Bool
    ) -> BluetoothAddress? {
        let evicted =
            notes.touch(address, note) { address, _ in kept(address) || inUse(address) }
            ?? notes.evictIfFull { address, _ in kept(address) }
        return evicted?.key
    }

    /// The name a discovery teaches about what a thermometer advertises, if any.
    ///
    /// BlueZ's `Name` is the advertised name only while the device is heard advertising:
    /// once connected it becomes the GAP name ("BlueZ 5.66" on a Pi), which BlueZ caches
    /// and shows again on devices it restores at start-up, before any advertisement (no
    /// RSSI). An advertisement without its scan response shows the cached name too, so a
    /// configured name, once heard, is kept.
    static func advertisedName(
        in discovery: Discovery, known: String?, connected: Bool, configured: [String]
    ) -> String? {
        guard let name = discovery.advertisement.localName, discovery.rssi != nil, !connected else { return nil }
        if let known, configured.contains(known), !configured.contains(name) { return nil }
        return name
    }
}
