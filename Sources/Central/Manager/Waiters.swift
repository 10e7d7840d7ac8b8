/// Tasks waiting for a condition on the central's state.
///
/// Every waiter's condition is checked after each event the central handles
/// (and once at once), so waiting costs nothing between events: no polling.
struct Waiters {
    private var entries: [UInt64: () -> Bool] = [:]
    private var expiries: [UInt64: () -> Void] = [:]
    private var next: UInt64 = 0

    /// Registers a check that returns true once it has resumed its waiter.
    mutating func add(check: @escaping () -> Bool, expire: @escaping () -> Void) -> UInt64? {
        if check() { return nil }
        next += 1
        entries[next] = check
        expiries[next] = expire
        return next
    }

    /// Re-checks every waiter, dropping those that finished.
    mutating func evaluate() {
        for (id, check) in entries where check() {
            entries[id] = nil
            expiries[id] = nil
        }
    }

    /// Ends a waiter without a result (deadline or cancellation).
    mutating func expire(_ id: UInt64) {
        entries[id] = nil
        expiries.removeValue(forKey: id)?()
    }
}
