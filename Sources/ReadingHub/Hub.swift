public import BlectlProtocol
public import SensorModel
public import ConcurrencySupport
public import UnixSupport

/// The daemon's state: adapter, peripherals, connections and each device's latest reading,
/// and the one way out to the outputs.
///
/// The central bridge pushes what happens with ``apply(_:)``; the hub assigns sequence
/// numbers and times, keeps bounded state, and hands each resulting ``Event`` to its
/// outputs (``addListener(_:)``: the socket server, the history store, MQTT, HTTP). Requests are
/// answered from this state, from the ``HistorySource`` for history, and through
/// ``CentralControl`` for scans and fresh reads.
///
/// The hub runs on an ``EventLoop``: blectld gives it the central's, so readings
/// reach it, and through it the outputs, on one thread without hops.
public actor Hub {
    /// The executor the hub runs on.
    public nonisolated let executor: EventLoop
    /// The hub's executor, for the actor runtime.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Bounds and defaults; ``settings`` lists those blectld's configuration sets.
    public struct Limits: Equatable, Sendable {
        /// Peripherals in the table (`max_devices`).
        public var peripherals = 1024
        /// The most events one `history` reply carries.
        public var historyPage = ProtocolInfo.historyPageLimit
        /// Scan length when the request names none.
        public var defaultScan: Duration = .seconds(10)
        /// The longest scan a request may ask for (the protocol states it: blectl checks it too).
        public var maxScan: Duration = .seconds(ProtocolInfo.maxScanSeconds)
        /// How long `read` waits for a thermometer when the request names no timeout.
        public var defaultReadTimeout: Duration = .seconds(10)
        /// The longest wait a `read` may ask for (the protocol states it: blectl checks it too).
        public var maxReadTimeout: Duration = .seconds(ProtocolInfo.maxReadTimeoutSeconds)
        /// How long `memory_download` waits for the download when the request names no timeout.
        public var defaultMemoryDownload: Duration = .seconds(60)
        /// The longest wait a `memory_download` may ask for (the protocol states it: blectl checks it too).
        public var maxMemoryDownload: Duration = .seconds(ProtocolInfo.maxMemoryDownloadSeconds)
        /// How long one fresh read may take before the stored reading is used instead.
        public var freshRead: Duration = .seconds(5)
        /// How often an unchanged peripheral is announced again while it keeps advertising.
        public var sightingRefresh: Duration = .seconds(10)
        /// Names shown for devices instead of their own (configured aliases).
        public var aliases: [BluetoothAddress: String] = [:]
        /// Offsets added to devices' readings (configured calibrations).
        public var calibrations: [BluetoothAddress: Calibration] = [:]
        /// The longest silence of a device between two readings that is not recorded as a
        /// "not heard" gap in the history.
        public var gapAfter: Duration = .seconds(600)
        /// The shortest time the adapter is down that is recorded as a gap.
        public var shortestAdapterGap: Duration = .seconds(60)

        /// The defaults.
        public init() {}

        /// The hub's settings, in the order help lists them; the defaults are the properties'.
        public static let settings: [Setting<Self>] = [
            .duration(
                "scan_timeout", flag: "scan-timeout", "SECONDS", "Default scan duration", at: \.defaultScan,
                within: .seconds(1)...Duration.seconds(300)
            )
            .documented(
                "How long a *blectl scan* lasts when it names no timeout, 1 s to 300 s."),
            .integer(
                "max_devices", "N", "Devices tracked; the one unseen longest is forgotten first", at: \.peripherals,
                within: 16...100_000
            )
            .documented(
                "Devices tracked, thermometers or not (names, last sightings, the _peripherals_ table), 16 "
                    + "to 100000; the one unseen longest is forgotten first (never a connected one, nor a thermometer "
                    + "known to work). A crowded place may hold thousands."),
        ]
    }

    /// Receives every event, in `seq` order, synchronously while the hub is busy: it must
    /// only hand the event on (the socket server queues it, the store appends it), never block.
    public typealias Listener = @Sendable (Event) -> Void

    /// Fills in an output's part of a `status` reply (the history store's, say): its section,
    /// set with ``StatusResult/setSection(_:)``, which every client shows without knowing it.
    public typealias StatusContributor = @Sendable (inout StatusResult) async -> Void

    /// A registered listener and the `seq` that was current when it was added.
    public struct ListenerRegistration: Sendable {
        /// Pass to ``Hub/removeListener(_:)``.
        public let id: Int
        /// The highest `seq` assigned before the listener was added.
        public let lastSeq: UInt64
    }

    let limits: Limits
    let now: @Sendable () -> Timestamp
    let started: Timestamp
    var central: (any CentralControl)?
    var aliases: [BluetoothAddress: String] { limits.aliases }
    var calibrations: [BluetoothAddress: Calibration] { limits.calibrations }
    var historySource: (any HistorySource)?
    /// Reads sensors' memory on request; nil while the daemon reads none.
    var sensorMemory: (any SensorMemoryControl)?
    /// Why no sensor memory is read (the setting that turns it off), for `memory_download`.
    var sensorMemoryOff = "the daemon reads no sensor memory"

    var adapterName: String?
    var adapterState = AdapterState.unknown
    /// Since when the adapter is down (off, gone, without bluetoothd); nil while it is up.
    var adapterDownSince: Timestamp?
    /// Since when the adapter is up this time (or the hub started): a device silent from
    /// before then was not heard because nothing could be.
    var adapterUpSince: Timestamp?
    var adapterReason: String?
    var table: PeripheralTable
    /// The highest sequence number assigned.
    public internal(set) var lastSeq: UInt64

    private var listeners: [Int: Listener] = [:]
    private var nextListenerID = 0
    var statusContributors: [StatusContributor] = []
    /// Requests waiting for the state to change (a thermometer to connect, a reading).
    let waiters: ConditionWaiters<Never>
    /// What each profile's family declares, for the peripheral table's names and models.
    let sensors: SensorCatalog
    /// The model and manufacturer last looked up, by profile (``maker(of:)``).
    private var lastMaker: (profile: ProfileID, modelIndex: UInt8?, maker: (model: String, manufacturer: String)?)?

    /// Creates a hub; `now` is the clock for timestamps (tests pass a fixed one), `executor`
    /// the one it runs on (its own when not given), and `sensors` the families known.
    ///
    /// - Parameter lastSeq: the highest sequence number used before (the history store
    ///   remembers it), so numbers continue across restarts and never repeat.
    public init(
        limits: Limits = Limits(),
        central: (any CentralControl)? = nil,
        lastSeq: UInt64 = 0,
        now: @escaping @Sendable () -> Timestamp = { Timestamp.now() },
        executor: EventLoop? = nil,
        sensors: SensorCatalog = SensorCatalog([])
    ) {
        self.executor = executor ?? EventLoop(label: "blectl-hub")
        waiters = ConditionWaiters(loop: self.executor)
        self.limits = limits
        self.central = central
        self.lastSeq = lastSeq
        self.now = now
        self.started = now()
        self.table = PeripheralTable(capacity: limits.peripherals)
        self.sensors = sensors
    }

    /// The model and manufacturer of `profile`'s family, for a reading.
    ///
    /// A reading's profile is nearly always the one before's: remembered, it is compared,
    /// where the catalog's lookup hashed its text for every reading (about 800 instructions).
    func maker(of profile: ProfileID, modelIndex: UInt8? = nil) -> (model: String, manufacturer: String)? {
        if let lastMaker, lastMaker.profile == profile, lastMaker.modelIndex == modelIndex { return lastMaker.maker }
        let maker = sensors.maker(of: profile, modelIndex: modelIndex)
        lastMaker = (profile, modelIndex, maker)
        return maker
    }

    /// Connects the Bluetooth side, for when it is built after the hub.
    public func attach(_ central: any CentralControl) {
        self.central = central
    }

    /// Connects the history store: it receives every event (as a listener does), answers
    /// `history` requests, and adds its state to `status`.
    @discardableResult
    public func attach(history source: any HistorySource) -> ListenerRegistration {
        historySource = source
        addStatusContributor { $0.setSection(await source.status()) }
        return addListener { source.append($0) }
    }

    /// Adds an output: `listener` receives every future event.
    @discardableResult
    public func addListener(_ listener: @escaping Listener) -> ListenerRegistration {
        nextListenerID += 1
        listeners[nextListenerID] = listener
        return ListenerRegistration(id: nextListenerID, lastSeq: lastSeq)
    }

    /// Removes a listener.
    public func removeListener(_ id: Int) {
        listeners[id] = nil
    }

    /// Adds an output's part to every `status` reply.
    public func addStatusContributor(_ contributor: @escaping StatusContributor) {
        statusContributors.append(contributor)
    }

    func broadcast(_ event: Event) {
        for listener in listeners.values { listener(event) }
    }
}

/// The durable history, as the hub sees it: an output that keeps every reading and answers
/// `history` requests (including readings it has not committed yet).
public protocol HistorySource: Sendable {
    /// Keeps a reading or reading error (other events are ignored). Called in `seq` order
    /// on the hub's executor: it must not block.
    func append(_ event: Event)
    /// The stored readings and reading errors `query` selects, oldest first, at most
    /// `limit`; `last_seq` is left for the hub to fill in.
    func history(_ query: HistoryQuery, limit: Int) async -> HistoryResult
    /// The store's state, for `status`.
    func status() async -> HistoryStatus
    /// Keeps a time range without readings and why. Called on the hub's executor: it must
    /// not block.
    func record(gap: HistoryGap)
}
