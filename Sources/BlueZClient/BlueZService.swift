import DBusCore
public import ConcurrencySupport

/// Which message bus has the `org.bluez` to use.
public enum BlueZBus: Sendable, Equatable {
    /// The system bus (where bluetoothd lives; honours `DBUS_SYSTEM_BUS_ADDRESS`).
    case system
    /// A bus at an address, such as the mock adapter's private bus.
    case address(String)
}

/// A client of bluetoothd: a live mirror of `org.bluez`'s objects and typed calls.
///
/// Start-up follows the rule that keeps mirrors right: add the match rules
/// first, then take the `GetManagedObjects` snapshot. Signals that arrive while
/// the snapshot is on its way are held; those bluetoothd sent before its reply
/// (lower serial) are already in the snapshot and are dropped, the others are
/// applied on top of it. The client
/// follows `NameOwnerChanged` of `org.bluez`, so a bluetoothd that stops or
/// crashes empties the mirror and one that returns is snapshotted again.
///
/// Signals claiming to come from `org.bluez` are accepted only from the connection that owns
/// that name now (a signal sent straight to us by another program is dropped, counted and
/// logged).
///
/// The client shares its connection's executor: observers are called on it,
/// synchronously, after the mirror is updated.
public actor BlueZService {
    /// The connection (one for the whole daemon).
    nonisolated let connection: DBusConnection
    /// The D-Bus connection's executor: the mirror runs on the connection's event loop.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { connection.unownedExecutor }
    /// The event loop (one thread) the client, its connection and its observers run on.
    public nonisolated var executor: EventLoop { connection.executor }

    /// The mirror of BlueZ's objects.
    var tree = ObjectTree()
    /// Whether bluetoothd is on the bus and the mirror is current.
    public private(set) var isServiceAvailable = false
    /// Set when the bus refused us (`AccessDenied`).
    public private(set) var accessDenied: BlueZError?

    /// Devices whose calls go first when calls wait for a place (thermometers known to work).
    private var preferredDevices: Set<BlueZPath> = []
    private var observers: [UInt64: @Sendable (BlueZEvent) -> Void] = [:]
    private var nextObserver: UInt64 = 0
    private var snapshotInFlight = false
    /// Signals received while a snapshot is on its way.
    private var heldSignals: [DBusMessage] = []
    private var snapshotAgain = false
    private var reportedProblems: Set<String> = []
    /// Serves the objects BlueZ calls back (advertisement monitors); made on first use.
    var objectServer: DBusObjectServer?
    /// The object server on its way: registrations on several adapters at once share it.
    var objectServerMaking: Task<DBusObjectServer, Never>?
    private let diagnostics: @Sendable (String) -> Void
    /// Forged signals (not from bluetoothd) dropped so far, and when one was last logged.
    public private(set) var rejectedSignals = 0
    private var lastRejectionLog: ContinuousClock.Instant?

    /// Creates a client; call ``start()`` before use.
    ///
    /// - Parameter diagnostics: receives notes on unexpected data (wrong-typed
    ///   properties, malformed signals); each distinct note once.
    init(connection: DBusConnection, diagnostics: @escaping @Sendable (String) -> Void = { _ in }) {
        self.connection = connection
        self.diagnostics = diagnostics
    }

    /// Opens one D-Bus connection (for the whole daemon), builds the client on it and
    /// starts following BlueZ.
    ///
    /// Fails only when the bus cannot be reached; a missing bluetoothd or a refused policy
    /// shows up as ``isServiceAvailable`` and ``accessDenied``.
    public static func connect(
        to bus: BlueZBus, diagnostics: @escaping @Sendable (String) -> Void = { _ in }
    ) async throws -> BlueZService {
        let address: BusAddress =
            switch bus {
            case .system: .system
            case .address(let text): .address(text)
            }
        let client = BlueZService(
            connection: try await DBusConnection.connect(to: address, label: "bluez"), diagnostics: diagnostics)
        try await client.start()
        return client
    }

    /// Closes the D-Bus connection: BlueZ ends our scan and notification sessions.
    public func close() async {
        await connection.close()
    }

    /// Calls `handler` once if the bus drops the connection (dbus-daemon stopped or
    /// restarted), but not when ``close()`` closes it.
    public func onBusLost(_ handler: @escaping @Sendable () -> Void) async {
        await connection.addDropHandler(handler)
    }

    /// Subscribes to BlueZ's signals, then takes the first snapshot.
    func start() async throws {
        await connection.setRejectedSignalHandler { [weak self] message in
            self?.assumeIsolated(passing: message) { $0.rejected($1) }
        }
        let bluez = BlueZ.service
        try await subscribe(MatchRule(sender: bluez, interface: BlueZ.Interface.objectManager, path: .root))
        try await subscribe(
            MatchRule(
                sender: bluez, interface: BlueZ.Interface.properties, member: "PropertiesChanged",
                pathNamespace: BlueZ.root))
        _ = try await connection.watchNameOwner(bluez) { [weak self] change in
            self?.assumeIsolated { $0.ownerChanged(change) }
        }
        await snapshot()
    }

    private func subscribe(_ rule: MatchRule) async throws {
        _ = try await connection.addSignalHandler(rule) { [weak self] message in
            self?.assumeIsolated(passing: message) { $0.receive($1) }
        }
    }

    /// Registers an observer; it is called on the connection's executor after each update.
    @discardableResult
    public func addObserver(_ observer: @escaping @Sendable (BlueZEvent) -> Void) -> UInt64 {
        nextObserver += 1
        observers[nextObserver] = observer
        return nextObserver
    }

    /// Removes an observer.
    public func removeObserver(_ token: UInt64) { observers[token] = nil }

    /// Marks a device preferred (or no longer): when the budget of calls awaiting replies is
    /// spent, its calls (to it and its GATT objects) go before the others waiting.
    public func setPreferred(_ device: BlueZPath, _ preferred: Bool) {
        if preferred { preferredDevices.insert(device) } else { preferredDevices.remove(device) }
    }

    func isPreferred(_ path: ObjectPath) -> Bool {
        guard !preferredDevices.isEmpty, let device = BlueZPath(path).device else { return false }
        return preferredDevices.contains(device)
    }

    // MARK: Snapshot and owner

    private func snapshot() async {
        guard !snapshotInFlight else {
            snapshotAgain = true
            return
        }
        snapshotInFlight = true
        defer { snapshotInFlight = false }
        repeat {
            snapshotAgain = false
            await takeSnapshot()
        } while snapshotAgain
    }

    /// Takes the snapshot, retrying a few times when bluetoothd owns its name but
    /// does not answer yet (it requests the name before it attaches its
    /// ObjectManager, so an early `GetManagedObjects` fails).
    private func takeSnapshot() async {
        var delay = Duration.milliseconds(100)
        for _ in 0..<6 {
            guard await trySnapshot() else { return }
            try? await executor.sleep(for: delay)
            delay *= 2
        }
    }

    /// One attempt; returns whether it is worth trying again.
    private func trySnapshot() async -> Bool {
        do {
            let reply = try await connection.call(
                destination: BlueZ.service, path: .root, interface: BlueZ.Interface.objectManager,
                member: "GetManagedObjects", timeout: .seconds(10))
            tree = ObjectTree(snapshot: try reply.decodeSingle([ObjectPath: [String: [String: DBusValue]]].self))
            // The reply is handled after signals that followed it on the wire were
            // already dispatched: apply those (sent after the reply) on top.
            for message in heldSignals where message.sender == reply.sender && message.serial > reply.serial {
                apply(message, notifying: false)
            }
            heldSignals = []
            accessDenied = nil
            isServiceAvailable = true
            notify(.serviceAppeared)
            return false
        } catch {
            heldSignals = []
            let classified = BlueZError(any: error)
            if case .accessDenied = classified { accessDenied = classified }
            note("cannot read BlueZ's objects: \(classified)")
            if isServiceAvailable { vanish() }
            switch classified {
            case .serviceUnavailable, .accessDenied, .disconnected: return false
            default: return true
            }
        }
    }

    private func ownerChanged(_ change: NameOwnerChange) {
        if change.oldOwner != nil, isServiceAvailable || !tree.objects.isEmpty { vanish() }
        if change.newOwner != nil { Task { await snapshot() } }
    }

    private func vanish() {
        tree.removeAll()
        isServiceAvailable = false
        notify(.serviceVanished)
    }

    // MARK: Signals

    private func receive(_ message: DBusMessage) {
        guard !snapshotInFlight else {
            heldSignals.append(message)
            return
        }
        guard isServiceAvailable else {
            // bluetoothd is talking, so it is there: the snapshot we lack is due.
            Task { await snapshot() }
            return
        }
        apply(message, notifying: true)
    }

    /// Applies one signal to the mirror, then (when `notifying`) tells the observers.
    private func apply(_ message: DBusMessage, notifying: Bool) {
        let change = tree.apply(message)
        if case .malformed(let problem) = change { note(problem) }
        if notifying { change.events(problem: { note($0) }, { notify($0) }) }
    }

    /// Tells the observers what a `PropertiesChanged` changed that they follow, one event
    /// per property.
    func notifyChanges(_ path: BlueZPath, _ interface: String, _ changed: [String: DBusValue]) {
        PropertyEvents.emit(path, interface, changed, problem: { note($0) }) { notify($0) }
    }

    private func notify(_ event: BlueZEvent) {
        for observer in observers.values { observer(event) }
    }

    /// Counts a forged signal and logs it, at most once a minute (a flood must not flood
    /// the log).
    private func rejected(_ message: DBusMessage) {
        rejectedSignals += 1
        let now = ContinuousClock.now
        if let last = lastRejectionLog, now - last < .seconds(60) { return }
        lastRejectionLog = now
        diagnostics(
            "ignored a \(message.member ?? "signal") claiming to come from org.bluez, sent by "
                + "\(message.sender ?? "an unknown sender") (\(rejectedSignals) so far)")
    }

    /// Reports a problem once.
    func note(_ problem: String) {
        if reportedProblems.count > 1000 { reportedProblems.removeAll() }
        guard reportedProblems.insert(problem).inserted else { return }
        diagnostics(problem)
    }

    func note(problems: [String]) { problems.forEach { note($0) } }
}
