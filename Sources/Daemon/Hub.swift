import SensorModel
public import BlectlProtocol
import Central
public import UnixSupport

/// The daemon's state: adapter, peripherals, connections and reading history.
///
/// The central bridge pushes what happens with ``apply(_:)``; the hub assigns sequence
/// numbers and times, keeps bounded state, and hands each resulting ``Event`` to its
/// listeners (the socket server). Requests are answered from this state, going to the
/// Bluetooth side through ``CentralControl`` only for scans and fresh reads.
///
/// The hub runs on an ``EventLoop``: blectld gives it the central's, so readings
/// reach it, and through it the socket server, on one thread without hops.
public actor Hub {
    /// The executor the hub runs on.
    public nonisolated let executor: EventLoop
    /// The hub's executor, for the actor runtime.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    /// Bounds and defaults.
    public struct Limits: Sendable {
        /// Readings and reading errors kept per device.
        public var historyPerDevice = 1000
        /// Devices whose history is kept; the least recently heard one is forgotten.
        public var devicesWithHistory = 256
        /// Peripherals in the table (`max_devices`).
        public var peripherals = 1024
        /// The most events one `history` reply carries.
        public var historyPage = 1000
        /// Scan length when the request names none.
        public var defaultScan: Duration = .seconds(10)
        /// The longest scan a request may ask for.
        public var maxScan: Duration = .seconds(120)
        /// How long `read` waits for a thermometer when the request names no timeout.
        public var defaultReadTimeout: Duration = .seconds(10)
        /// The longest wait a `read` may ask for.
        public var maxReadTimeout: Duration = .seconds(300)
        /// How long one fresh read may take before the stored reading is used instead.
        public var freshRead: Duration = .seconds(5)
        /// How often an unchanged peripheral is announced again while it keeps advertising.
        public var sightingRefresh: Duration = .seconds(10)

        /// The defaults.
        public init() {}

        /// The defaults with the configured history size and scan length.
        public init(configuration: DaemonConfiguration) {
            historyPerDevice = configuration.historySize
            defaultScan = configuration.scanTimeout
            peripherals = configuration.maxDevices
        }
    }

    /// Receives every event, in `seq` order, synchronously while the hub is busy: it must
    /// only hand the event on (the socket server queues it), never block.
    public typealias Listener = @Sendable (Event) -> Void

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

    var adapterName: String?
    var adapterState = AdapterState.unknown
    var table: PeripheralTable
    var store: ReadingStore
    /// The highest sequence number assigned.
    public internal(set) var lastSeq: UInt64 = 0

    private var listeners: [Int: Listener] = [:]
    private var nextListenerID = 0
    /// Requests waiting for the state to change (a thermometer to connect, a reading).
    let waiters: ConditionWaiters<Never>
    var scanTask: Task<Void, any Error>?

    /// Creates a hub; `now` is the clock for timestamps (tests pass a fixed one), and
    /// `executor` the one it runs on (its own when not given).
    public init(
        limits: Limits = Limits(),
        central: (any CentralControl)? = nil,
        now: @escaping @Sendable () -> Timestamp = { Timestamp.now() },
        executor: EventLoop? = nil
    ) {
        self.executor = executor ?? EventLoop(label: "blectl-hub")
        waiters = ConditionWaiters(loop: self.executor)
        self.limits = limits
        self.central = central
        self.now = now
        self.started = now()
        self.table = PeripheralTable(capacity: limits.peripherals)
        self.store = ReadingStore(perDevice: limits.historyPerDevice, maxDevices: limits.devicesWithHistory)
    }

    /// Connects the Bluetooth side, for when it is built after the hub.
    public func attach(_ central: any CentralControl) {
        self.central = central
    }

    /// Adds a listener for every future event.
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

    func broadcast(_ event: Event) {
        for listener in listeners.values { listener(event) }
    }
}
