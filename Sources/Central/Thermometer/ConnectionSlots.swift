import SensorModel

/// Who may connect now: at most `maxConnecting` attempts under way and `maxConnections`
/// links held (attempts included).
///
/// Thermometers that worked before (``markKnown(_:)``) go first and keep a link each
/// reserved while they have none, so devices being tried (anything advertising a
/// thermometer's name) never take the links the known ones need. The rest wait in the
/// order they asked.
struct ConnectionSlots {
    /// What a request gets.
    enum Decision: Equatable {
        /// It may connect now (its attempt is counted).
        case go
        /// It waits for an attempt to finish.
        case queued
        /// It waits for a link: `maxConnections` are held or reserved.
        case leftOut
    }

    let maxConnecting: Int
    let maxConnections: Int
    private(set) var connecting: Set<BluetoothAddress> = []
    private(set) var linked: Set<BluetoothAddress> = []
    private(set) var known: Set<BluetoothAddress> = []
    private var waiting: [BluetoothAddress] = []

    init(maxConnecting: Int, maxConnections: Int) {
        self.maxConnecting = max(1, maxConnecting)
        self.maxConnections = max(1, maxConnections)
    }

    /// The waiting addresses that no link is free for: they are left out.
    var waitingForLink: [BluetoothAddress] { waiting.filter { !linkFree(for: $0) } }

    /// Asks for an attempt; returns the decision for `address`, and the others that may go
    /// now (when asking changed nothing for them, none).
    mutating func request(_ address: BluetoothAddress) -> (decision: Decision, alsoGranted: [BluetoothAddress]) {
        if !waiting.contains(address) { waiting.append(address) }
        var granted = grantEligible()
        if let index = granted.firstIndex(of: address) {
            granted.remove(at: index)
            return (.go, granted)
        }
        return (linkFree(for: address) ? .queued : .leftOut, granted)
    }

    /// The attempt of `address` brought its link up: it holds a link, no longer an attempt.
    mutating func established(_ address: BluetoothAddress) -> [BluetoothAddress] {
        guard connecting.remove(address) != nil else { return [] }
        linked.insert(address)
        return grantEligible()
    }

    /// `address` gives up whatever it holds or waits for; returns the addresses that may go now.
    mutating func release(_ address: BluetoothAddress) -> [BluetoothAddress] {
        connecting.remove(address)
        linked.remove(address)
        waiting.removeAll { $0 == address }
        return grantEligible()
    }

    /// `address` worked: from now on it goes first and keeps a link reserved.
    mutating func markKnown(_ address: BluetoothAddress) { known.insert(address) }

    /// Known thermometers holding no link nor attempt: each keeps one link reserved.
    private var reserved: Int { known.count { !connecting.contains($0) && !linked.contains($0) } }

    private func linkFree(for address: BluetoothAddress) -> Bool {
        let held = connecting.count + linked.count
        if known.contains(address) { return held < maxConnections }
        return held + reserved < maxConnections
    }

    /// Grants attempts to waiting addresses, known ones first, each group in asking order.
    private mutating func grantEligible() -> [BluetoothAddress] {
        var granted: [BluetoothAddress] = []
        for preferKnown in [true, false] {
            var index = 0
            while index < waiting.count, connecting.count < maxConnecting {
                let address = waiting[index]
                guard known.contains(address) == preferKnown, linkFree(for: address) else {
                    index += 1
                    continue
                }
                waiting.remove(at: index)
                connecting.insert(address)
                granted.append(address)
            }
        }
        return granted
    }
}
