import DBusCore
import UnixSupport

/// Which changes of BlueZ's objects one event of the central touched, so that only the
/// waiters it can concern are checked again.
enum WaitTrigger: Equatable {
    /// Nothing a waiter looks at: a characteristic's or descriptor's `Value` alone.
    case none
    /// Objects of one device (its `Device1` or the GATT objects below it).
    case device(ObjectPath)
    /// Anything else: bluetoothd, adapters, objects outside a device.
    case everything
}

/// Tasks waiting for a condition on the central's state.
///
/// A waiter's condition is checked once at once, then after each event that can concern
/// it, so waiting costs nothing between events: no polling. A waiter scoped to a device
/// is checked after changes of that device's objects and after global changes (adapters,
/// bluetoothd); an unscoped one after every change. `Value` updates (notifications)
/// check no waiter: they would be checked thousands of times a second for nothing.
struct Waiters {
    private struct Entry {
        let device: ObjectPath?
        let check: () -> Bool
        let expire: () -> Void
        /// The waiter's deadline, cancelled when the waiter ends some other way.
        var deadline: LoopTimer?
    }

    private var entries: [UInt64: Entry] = [:]
    /// The ids of the waiters scoped to each device.
    private var byDevice: [ObjectPath: Set<UInt64>] = [:]
    /// The ids of the unscoped waiters.
    private var global: Set<UInt64> = []
    private var next: UInt64 = 0

    /// Registers a check that returns true once it has resumed its waiter; nil when it
    /// did at once.
    mutating func add(
        device: ObjectPath? = nil, check: @escaping () -> Bool, expire: @escaping () -> Void
    ) -> UInt64? {
        if check() { return nil }
        next += 1
        entries[next] = Entry(device: device, check: check, expire: expire, deadline: nil)
        if let device {
            byDevice[device, default: []].insert(next)
        } else {
            global.insert(next)
        }
        return next
    }

    /// Re-checks the waiters `trigger` can concern, dropping those that finished.
    mutating func evaluate(_ trigger: WaitTrigger) {
        switch trigger {
        case .none:
            return
        case .device(let path):
            evaluate(ids: global)
            if let scoped = byDevice[path] { evaluate(ids: scoped) }
        case .everything:
            evaluate(ids: Set(entries.keys))
        }
    }

    private mutating func evaluate(ids: Set<UInt64>) {
        for id in ids {
            guard let entry = entries[id], entry.check() else { continue }
            remove(id)
        }
    }

    /// Gives waiter `id` a deadline timer, cancelled when the waiter ends first.
    mutating func setDeadline(_ id: UInt64, _ timer: LoopTimer) {
        entries[id]?.deadline = timer
    }

    /// Ends a waiter without a result (deadline or cancellation).
    mutating func expire(_ id: UInt64) {
        remove(id)?.expire()
    }

    @discardableResult
    private mutating func remove(_ id: UInt64) -> Entry? {
        guard let entry = entries.removeValue(forKey: id) else { return nil }
        entry.deadline?.cancel()
        if let device = entry.device {
            byDevice[device]?.remove(id)
            if byDevice[device]?.isEmpty == true { byDevice[device] = nil }
        } else {
            global.remove(id)
        }
        return entry
    }
}
