import BlueZClient
import SensorModel

/// Who may connect now, and through which adapter: at most `maxConnecting` attempts under
/// way, and `maxConnections` links held (attempts included) on each adapter (issue 36).
///
/// Each request names the adapters the device may connect through, best first (its owner,
/// then the others that hear it); it is granted the first of them with a free link.
/// Thermometers that worked before (``markKnown(_:)``) go first and keep a link reserved on
/// the adapter of their last link while they have none, so devices being tried (anything
/// advertising a thermometer's name) never take the links the known ones need. The rest
/// wait in the order they asked. With one adapter this is one pool of `maxConnections`.
struct ConnectionSlots {
    /// What a request gets.
    enum Decision: Equatable {
        /// It may connect now (its attempt is counted).
        case go
        /// It waits for an attempt to finish.
        case queued
        /// It waits for a link: `maxConnections` are held or reserved on each of its adapters.
        case leftOut
    }

    let maxConnecting: Int
    /// Links per adapter.
    let maxConnections: Int
    /// Attempts under way, each with the adapter it was granted.
    private(set) var connecting: [BluetoothAddress: BlueZPath] = [:]
    /// Links held, each with its adapter.
    private(set) var linked: [BluetoothAddress: BlueZPath] = [:]
    /// Thermometers known to work, each with the adapter of its last link (where its link is
    /// reserved), if it had one.
    private(set) var known: [BluetoothAddress: BlueZPath?] = [:]
    /// Requests waiting, in asking order, each with its adapters (best first).
    private var waiting: [(address: BluetoothAddress, adapters: [BlueZPath])] = []

    init(maxConnecting: Int, maxConnections: Int) {
        self.maxConnecting = max(1, maxConnecting)
        self.maxConnections = max(1, maxConnections)
    }

    /// The waiting addresses that no link is free for: they are left out.
    var waitingForLink: [BluetoothAddress] {
        waiting.filter { freeAdapter(for: $0.address, among: $0.adapters) == nil }.map(\.address)
    }

    /// The adapter the attempt or link of `address` goes through, if it has one.
    func adapter(of address: BluetoothAddress) -> BlueZPath? { connecting[address] ?? linked[address] }

    /// Links held and attempts under way through `adapter`.
    func held(on adapter: BlueZPath) -> Int {
        connecting.values.count { $0 == adapter } + linked.values.count { $0 == adapter }
    }

    /// Asks for an attempt through one of `adapters` (best first); returns the decision for
    /// `address`, and the others that may go now (when asking changed nothing for them, none).
    /// The adapter granted is ``adapter(of:)``.
    mutating func request(_ address: BluetoothAddress, on adapters: [BlueZPath]) -> (
        decision: Decision, alsoGranted: [BluetoothAddress]
    ) {
        if let index = waiting.firstIndex(where: { $0.address == address }) {
            waiting[index].adapters = adapters
        } else {
            waiting.append((address, adapters))
        }
        var granted = grantEligible()
        if let index = granted.firstIndex(of: address) {
            granted.remove(at: index)
            return (.go, granted)
        }
        return (freeAdapter(for: address, among: adapters) != nil ? .queued : .leftOut, granted)
    }

    /// The attempt of `address` brought its link up: it holds a link, no longer an attempt.
    mutating func established(_ address: BluetoothAddress) -> [BluetoothAddress] {
        guard let adapter = connecting.removeValue(forKey: address) else { return [] }
        linked[address] = adapter
        return grantEligible()
    }

    /// `address` gives up whatever it holds or waits for; returns the addresses that may go now.
    mutating func release(_ address: BluetoothAddress) -> [BluetoothAddress] {
        connecting[address] = nil
        linked[address] = nil
        waiting.removeAll { $0.address == address }
        return grantEligible()
    }

    /// `address` worked: from now on it goes first and keeps a link reserved (on the adapter
    /// of its link).
    mutating func markKnown(_ address: BluetoothAddress) { known[address] = adapter(of: address) }

    /// Known thermometers holding no link nor attempt whose last link was through `adapter`:
    /// each keeps one link reserved there.
    private func reserved(on adapter: BlueZPath) -> Int {
        known.count { address, home in home == adapter && connecting[address] == nil && linked[address] == nil }
    }

    /// The first of `adapters` with a link free for `address`.
    private func freeAdapter(for address: BluetoothAddress, among adapters: [BlueZPath]) -> BlueZPath? {
        let isKnown = known[address] != nil
        return adapters.first { adapter in
            held(on: adapter) + (isKnown ? 0 : reserved(on: adapter)) < maxConnections
        }
    }

    /// Grants attempts to waiting addresses, known ones first, each group in asking order.
    private mutating func grantEligible() -> [BluetoothAddress] {
        var granted: [BluetoothAddress] = []
        for preferKnown in [true, false] {
            var index = 0
            while index < waiting.count, connecting.count < maxConnecting {
                let (address, adapters) = waiting[index]
                guard (known[address] != nil) == preferKnown, let adapter = freeAdapter(for: address, among: adapters)
                else {
                    index += 1
                    continue
                }
                waiting.remove(at: index)
                connecting[address] = adapter
                granted.append(address)
            }
        }
        return granted
    }
}
