import BlueZClient
import SensorModel

/// Which adapter each device belongs to when several are in use (issue 36): the one that
/// hears it best, its GATT connections going through that adapter.
///
/// Each adapter's RSSI of a device is smoothed (an exponential moving average over its
/// hearings), and the owner changes only when another adapter's smoothed RSSI beats the
/// owner's by more than ``switchMargin`` (the dead band), when the owner has not heard the
/// device for ``staleAfter``, or when the owner adapter goes. An RSSI that jumps between
/// the adapters at every advertisement thus moves the smoothed values a little each way
/// and the owner not at all.
///
/// A plain value fed by the central with BlueZ's `RSSI` changes; only built when more
/// than one adapter is in use. Entries follow BlueZ's device objects (dropped with them).
struct AdapterOwnership {
    /// The share of the way each hearing moves an adapter's smoothed RSSI towards the new
    /// value (an RSSI alternating ±20 dB at every hearing swings the average by ±1.1 dB; a
    /// 20 dB move is followed within four hearings).
    static let smoothing = 0.1
    /// How many dB another adapter's smoothed RSSI must beat the owner's by to take the
    /// device (the dead band: a difference within it keeps the owner).
    static let switchMargin = 6.0
    /// An owner that has not heard the device for this long hands it to the adapter that
    /// hears it best (the device moved out of its range, or the adapter is deaf).
    static let staleAfter = Duration.seconds(60)
    /// How long after a device's first hearing, while some adapter in use has not heard it
    /// yet, it is not connected (the adapters' scans do not hear it at the same moment, and
    /// the first to hear it is not necessarily the best).
    static let settleTime = Duration.seconds(2)

    /// One adapter's hearing of one device.
    struct Signal: Equatable {
        /// The smoothed RSSI, dBm.
        var smoothed: Double
        var lastHeard: ContinuousClock.Instant
    }

    /// One device: each adapter's signal, and the owner.
    struct Entry: Equatable {
        var signals: [BlueZPath: Signal] = [:]
        var owner: BlueZPath?
        var firstHeard: ContinuousClock.Instant

        /// `adapter` heard the device at `value` dBm.
        mutating func hear(_ value: Double, on adapter: BlueZPath, at now: ContinuousClock.Instant) {
            let smoothed = signals[adapter].map { $0.smoothed + (value - $0.smoothed) * AdapterOwnership.smoothing }
            signals[adapter] = Signal(smoothed: smoothed ?? value, lastHeard: now)
            owner = AdapterOwnership.elect(self, at: now)
        }
    }

    private(set) var devices: [BluetoothAddress: Entry] = [:]
    /// The adapters followed (in use and powered): hearings on others are ignored.
    private(set) var adapters: Set<BlueZPath> = []

    /// The adapter that owns `device`, if any hears it.
    func owner(of device: BluetoothAddress) -> BlueZPath? { devices[device]?.owner }

    /// Whether `device` may be connected now: heard by `adapterCount` adapters (all in use),
    /// or first heard ``settleTime`` ago.
    func isSettled(_ device: BluetoothAddress, adapterCount: Int, at now: ContinuousClock.Instant) -> Bool {
        guard let entry = devices[device] else { return true }
        return entry.signals.count >= adapterCount || now - entry.firstHeard >= Self.settleTime
    }

    /// How many devices `adapter` owns.
    func ownedCount(by adapter: BlueZPath) -> Int { devices.values.count { $0.owner == adapter } }

    /// `adapter` heard `device` at `rssi` dBm at `now`.
    mutating func heard(_ device: BluetoothAddress, on adapter: BlueZPath, rssi: Int, at now: ContinuousClock.Instant) {
        guard adapters.contains(adapter) else { return }
        // In place: no copy of the entry for every advertisement.
        devices[device, default: Entry(firstHeard: now)].hear(Double(rssi), on: adapter, at: now)
    }

    /// `device`'s link through `adapter` went down: the adapter heard it until now, though a
    /// connected device sends no advertisements. Without this a link held longer than
    /// ``staleAfter`` left its owner stale, and the first adapter to hear the device again
    /// took it, whatever its RSSI.
    mutating func linkEnded(_ device: BluetoothAddress, on adapter: BlueZPath, at now: ContinuousClock.Instant) {
        guard adapters.contains(adapter), devices[device]?.signals[adapter] != nil else { return }
        devices[device]?.signals[adapter]?.lastHeard = now
    }

    /// `adapter` no longer has `device` (BlueZ removed its device object there).
    mutating func lost(_ device: BluetoothAddress, on adapter: BlueZPath, at now: ContinuousClock.Instant) {
        guard var entry = devices[device], entry.signals.removeValue(forKey: adapter) != nil else { return }
        if entry.signals.isEmpty {
            devices[device] = nil
            return
        }
        if entry.owner == adapter { entry.owner = nil }
        entry.owner = Self.elect(entry, at: now)
        devices[device] = entry
    }

    /// Keeps only the signals of `adapters` (those in use and powered): the devices of an
    /// adapter gone, off or no longer used go to the next best.
    mutating func follow(_ adapters: Set<BlueZPath>, at now: ContinuousClock.Instant) {
        self.adapters = adapters
        for (device, var entry) in devices where !entry.signals.keys.allSatisfy(adapters.contains) {
            entry.signals = entry.signals.filter { adapters.contains($0.key) }
            if let owner = entry.owner, !adapters.contains(owner) { entry.owner = nil }
            entry.owner = Self.elect(entry, at: now)
            devices[device] = entry.signals.isEmpty ? nil : entry
        }
    }

    /// `adapters` ordered for connecting to `device`: its owner first, then the others
    /// that heard it recently by their smoothed RSSI, then the rest in their given order.
    func ranking(of device: BluetoothAddress, among adapters: [BlueZPath], at now: ContinuousClock.Instant)
        -> [BlueZPath]
    {
        guard let entry = devices[device] else { return adapters }
        func rank(_ adapter: BlueZPath) -> Double {
            if adapter == entry.owner { return .infinity }
            guard let signal = entry.signals[adapter], now - signal.lastHeard < Self.staleAfter else {
                return -.infinity
            }
            return signal.smoothed
        }
        return adapters.enumerated().sorted { lhs, rhs in
            let (left, right) = (rank(lhs.element), rank(rhs.element))
            return left != right ? left > right : lhs.offset < rhs.offset
        }
        .map(\.element)
    }

    /// The owner after a change: the current one, unless it is gone, it is stale and
    /// another adapter heard the device recently, or another adapter that heard it recently
    /// beats it by more than the margin. (Runs for every advertisement: no allocation.)
    private static func elect(_ entry: Entry, at now: ContinuousClock.Instant) -> BlueZPath? {
        let best = strongest(entry.signals) { now - $0.lastHeard < staleAfter }
        guard let owner = entry.owner, let current = entry.signals[owner] else {
            return best?.key ?? strongest(entry.signals) { _ in true }?.key
        }
        guard now - current.lastHeard < staleAfter else { return best?.key ?? owner }
        guard let best, best.value.smoothed > current.smoothed + switchMargin else { return owner }
        return best.key
    }

    /// The signal with the highest smoothed RSSI among those `included` (equal ones by path,
    /// so that the choice does not follow the dictionary's order).
    private static func strongest(
        _ signals: [BlueZPath: Signal], where included: (Signal) -> Bool
    ) -> (key: BlueZPath, value: Signal)? {
        var best: (key: BlueZPath, value: Signal)?
        for signal in signals where included(signal.value) {
            guard let current = best else {
                best = signal
                continue
            }
            if signal.value.smoothed > current.value.smoothed
                || (signal.value.smoothed == current.value.smoothed && signal.key < current.key)
            {
                best = signal
            }
        }
        return best
    }
}
