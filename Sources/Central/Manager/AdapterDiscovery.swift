import BlueZClient

/// Our discovery on each adapter in use: whether we hold a session there, how long it has
/// heard nothing (the scan watchdog's measure, one per adapter), and whether its next sound
/// is to be reported.
///
/// A few adapters at most: kept in an array, looked up by a path prefix. While no adapter
/// discovers and no sound is awaited (most of the time, once every thermometer streams), a
/// sound costs one store.
struct AdapterDiscovery {
    /// One adapter's discovery.
    struct Entry {
        let path: BlueZPath
        /// Whether we hold a discovery session on it.
        var active = false
        var silence = SilenceClock()
        /// Whether its next sound is reported as ``CentralEvent/heardAgain(_:)``.
        var reportsNextSound = false
        /// When `StartDiscovery` may be tried again after the adapter refused it.
        var retryAt: ContinuousClock.Instant?
        /// How long the next refusal waits.
        var retryDelay = Duration.seconds(1)
    }

    private(set) var entries: [Entry] = []
    /// Whether anything was heard from a device on any adapter.
    private(set) var heardAny = false
    /// Whether some entry is active or awaits a sound (the slow path of ``heard(_:)``).
    private var watching = false
    /// Whether the one adapter in use is the only one there: then every device is below it,
    /// and ``heard(_:)`` compares no path (about 450 instructions a sound, callgrind 2026-12-05).
    private var soleAdapter = false

    /// Whether we hold a session on some adapter.
    var anyActive: Bool { entries.contains(where: \.active) }

    /// The adapters we hold a session on.
    var activePaths: [BlueZPath] { entries.filter(\.active).map(\.path) }

    /// Follows the adapters in use, of `present` there: entries of adapters gone are dropped,
    /// new ones added.
    mutating func follow(_ paths: [BlueZPath], present: Int) {
        entries.removeAll { !paths.contains($0.path) }
        for path in paths where !entries.contains(where: { $0.path == path }) { entries.append(Entry(path: path)) }
        soleAdapter = entries.count == 1 && present == 1
        updateWatching()
    }

    /// The entry of `adapter`, if it is in use.
    subscript(adapter: BlueZPath) -> Entry? {
        entries.first { $0.path == adapter }
    }

    /// Changes the entry of `adapter` in place (nothing when it is not in use).
    mutating func modify(_ adapter: BlueZPath, _ body: (inout Entry) -> Void) {
        guard let index = entries.firstIndex(where: { $0.path == adapter }) else { return }
        body(&entries[index])
        updateWatching()
    }

    /// Our session on `adapter` went on or off; true when that changed anything.
    mutating func set(_ adapter: BlueZPath, active: Bool, at now: ContinuousClock.Instant) -> Bool {
        guard let index = entries.firstIndex(where: { $0.path == adapter }), entries[index].active != active else {
            return false
        }
        entries[index].active = active
        entries[index].silence.discovery(active, at: now)
        if active { entries[index].retryDelay = .seconds(1) }
        updateWatching()
        return true
    }

    /// A sound at `path` (below some adapter); returns the adapter whose next sound was
    /// awaited, if this is it.
    mutating func heard(_ path: BlueZPath) -> BlueZPath? {
        heardAny = true
        guard watching, let index = soleAdapter ? 0 : entries.firstIndex(where: { path.isBelow($0.path) }) else {
            return nil
        }
        entries[index].silence.heard()
        guard entries[index].reportsNextSound else { return nil }
        entries[index].reportsNextSound = false
        updateWatching()
        return entries[index].path
    }

    /// The adapter refused `StartDiscovery`: it is tried again after a delay that doubles
    /// (up to a minute); returns the delay.
    mutating func refused(_ adapter: BlueZPath, at now: ContinuousClock.Instant) -> Duration? {
        guard let index = entries.firstIndex(where: { $0.path == adapter }) else { return nil }
        let delay = entries[index].retryDelay
        entries[index].retryAt = now + delay
        entries[index].retryDelay = min(delay * 2, .seconds(60))
        return delay
    }

    /// Whether `StartDiscovery` may be tried on `adapter` now.
    func mayStart(_ adapter: BlueZPath, at now: ContinuousClock.Instant) -> Bool {
        guard let entry = self[adapter] else { return false }
        return entry.retryAt.map { $0 <= now } ?? true
    }

    private mutating func updateWatching() {
        watching = entries.contains { $0.active || $0.reportsNextSound }
    }
}
