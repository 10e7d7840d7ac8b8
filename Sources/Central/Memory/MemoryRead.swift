public import SensorModel

/// What a memory download asks of a sensor: which records, and whether to set its clock.
public struct MemoryReadRequest: Sendable {
    /// The sensor.
    public var address: BluetoothAddress
    /// The family it advertises as: it picks the protocol.
    public var family: ProfileID
    /// Its model, as its readings name it, where the family's models speak different
    /// protocols (a LYWSD02 against a LYWSD03MMC); nil: the family's first.
    public var model: String?
    /// Records measured after this gateway time (seconds since 1970); nil: the newest `limit`.
    public var newerThan: Int64?
    /// With ``newerThan`` nil, how many of the newest records.
    public var limit: Int
    /// Records the sensor would send first that an interrupted download already brought
    /// (the highest record number it received).
    public var skipping: Int
    /// Whether to set the sensor's clock to the gateway's (only done when ``gatewayClockSynchronized``).
    public var setClock: Bool
    /// Whether the gateway's own clock is synchronised (never push a wrong time).
    public var gatewayClockSynchronized: Bool
    /// The clock's last setting, for records stamped before then.
    public var earlierDrift: SensorClockSetting?
    /// No notification for this long ends the download (its slot is released).
    public var stallTimeout: Duration
    /// How long to wait for a connection slot before giving up for now.
    public var slotTimeout: Duration
    /// How long to wait for BlueZ's object of the device, which may come after its first
    /// reading (heard on the management socket).
    public var deviceTimeout: Duration = .seconds(10)
    /// Whether the visit only reads (and, as ``setClock`` says, sets) the clock: no records.
    public var clockOnly = false

    /// A request for the records newer than `newerThan` (gateway time).
    public init(
        address: BluetoothAddress, family: ProfileID, newerThan: Int64?, limit: Int = 0, skipping: Int = 0,
        setClock: Bool = false, gatewayClockSynchronized: Bool = false, stallTimeout: Duration = .seconds(15),
        slotTimeout: Duration = .seconds(60)
    ) {
        self.address = address
        self.family = family
        self.newerThan = newerThan
        self.limit = limit
        self.skipping = skipping
        self.setClock = setClock
        self.gatewayClockSynchronized = gatewayClockSynchronized
        self.stallTimeout = stallTimeout
        self.slotTimeout = slotTimeout
    }
}

/// What a download reports while it runs.
public enum MemoryReadProgress: Sendable {
    /// A record, with its time on the gateway's clock (seconds since 1970, drift corrected).
    case record(SensorMemoryRecord, gatewayTime: Int64)
    /// A record refused (impossible time or value, erased flash, not asked for).
    case rejected(SensorMemoryError)
}

/// How a download ended.
public enum MemoryReadEnd: Sendable, Equatable {
    /// It ran to its end (the sensor's marker, the count, or older records reached).
    case finished
    /// The link dropped on the way: a later download resumes after the last record.
    case disconnected
    /// No notification came for the stall timeout: the link was dropped.
    case stalled
    /// It could not start: no device, no slot, no link, no memory service; why, for people.
    case failed(String)

    /// Whether a later download should pick up where this one stopped.
    public var isInterrupted: Bool { self == .disconnected || self == .stalled }
}

/// What happened to the sensor's clock in a download's connection.
public enum ClockSetOutcome: Sendable, Equatable {
    /// Not asked for.
    case notAsked
    /// Asked for, but the gateway's clock is not synchronised: left alone.
    case gatewayUnsynchronized
    /// Set to the gateway's time.
    case set
    /// The sensor refused the write or did not answer it; why, for people.
    case refused(String)
}

/// The outcome of one download.
public struct MemoryReadResult: Sendable, Equatable {
    /// How it ended.
    public var end: MemoryReadEnd
    /// Records reported.
    public var received = 0
    /// Records refused.
    public var rejected = 0
    /// The highest record number received (what a resumed download skips).
    public var lastNumber = 0
    /// The sensor's clock minus the gateway's, in seconds, read before any setting; nil
    /// when the clock was not read.
    public var drift: Int64?
    /// What was done to the clock.
    public var clock: ClockSetOutcome = .notAsked
    /// The setting this download made, if it set the clock and read the drift before.
    public var setting: SensorClockSetting?
    /// How long the download held the sensor: from the connect call to the disconnect.
    public var connectedFor: Duration = .zero

    /// A result.
    public init(end: MemoryReadEnd) { self.end = end }
}
