import BlueZClient
import SensorModel

/// The sessions' turns to connect: ``ConnectionSlots`` decides who may go; the queue holds
/// the sessions waiting for their turn and remembers who was told it is left out.
struct ConnectQueue {
    private(set) var slots: ConnectionSlots
    /// Sessions waiting for an attempt: resumed with true when it is theirs.
    private var waiters: [BluetoothAddress: CheckedContinuation<Bool, Never>] = [:]
    /// Thermometers told they are left out (once each time they are).
    private var leftOut: Set<BluetoothAddress> = []

    init(maxConnecting: Int, maxConnections: Int) {
        slots = ConnectionSlots(maxConnecting: maxConnecting, maxConnections: maxConnections)
    }

    /// Links held and attempts under way, by the interface name of their adapter (`hci1`).
    var linksByAdapter: [String: Int] {
        var counts: [String: Int] = [:]
        for adapter in slots.connecting.values { counts[adapter.lastElement, default: 0] += 1 }
        for adapter in slots.linked.values { counts[adapter.lastElement, default: 0] += 1 }
        return counts
    }

    /// Whether `address` is known to work, connecting or holding a link (its device is kept).
    func holds(_ address: BluetoothAddress) -> Bool {
        slots.known[address] != nil || slots.adapter(of: address) != nil
    }

    /// Asks for an attempt through one of `adapters` (best first): true when `address` may go
    /// now (others may go too); the adapter granted is `slots.adapter(of:)`.
    mutating func request(_ address: BluetoothAddress, on adapters: [BlueZPath]) -> Bool {
        let (decision, others) = slots.request(address, on: adapters)
        wake(others)
        return decision == .go
    }

    /// The attempt of `address` brought its link up: the next may go.
    mutating func established(_ address: BluetoothAddress) { wake(slots.established(address)) }

    /// `address` gives up its attempt or link.
    mutating func release(_ address: BluetoothAddress) { wake(slots.release(address)) }

    /// `address` worked: from now on it goes first and keeps a link reserved.
    mutating func markKnown(_ address: BluetoothAddress) { slots.markKnown(address) }

    /// The waiting thermometers newly left out (every link held or kept for one known to
    /// work); each is returned once each time it is.
    mutating func newlyLeftOut() -> [BluetoothAddress] {
        slots.waitingForLink.filter { leftOut.insert($0).inserted }
    }

    /// Whether `address` had been left out; it no longer is.
    mutating func endLeftOut(_ address: BluetoothAddress) -> Bool { leftOut.remove(address) != nil }

    /// Parks the session of `address` until its turn; a session parked before for it is
    /// told no.
    mutating func park(_ address: BluetoothAddress, _ continuation: CheckedContinuation<Bool, Never>) {
        cancelWait(address)
        waiters[address] = continuation
    }

    /// The session of `address` stops waiting (told no).
    mutating func cancelWait(_ address: BluetoothAddress) {
        waiters.removeValue(forKey: address)?.resume(returning: false)
    }

    /// `address` is forgotten: its session stops waiting and gives up what it holds.
    mutating func forget(_ address: BluetoothAddress) {
        cancelWait(address)
        release(address)
    }

    /// Every waiting session stops waiting (at shutdown).
    mutating func cancelAll() {
        for waiter in waiters.values { waiter.resume(returning: false) }
        waiters = [:]
    }

    /// Lets the sessions of `addresses` go (their attempts are counted already).
    private mutating func wake(_ addresses: [BluetoothAddress]) {
        for address in addresses { waiters.removeValue(forKey: address)?.resume(returning: true) }
    }
}
