/// How strongly one adapter hears a peripheral: its range, as the radio sees it.
///
/// Reports wander ±6 dBm around the value (the peripheral's signal walk), whatever it is.
public enum MockSignal: Sendable, Equatable {
    /// The peripheral's own ``MockPeripheral/rssi`` moved by this many dB (0: the default).
    case offset(Int16)
    /// This many dBm, whatever the peripheral's own value.
    case fixed(Int16)
    /// `first` at the adapter's even reports of the peripheral, `second` at its odd ones: the
    /// signal jumps at every advertisement (``MockFault/flapSignal(address:strongOn:weakOn:strong:weak:)``).
    case alternating(first: Int16, second: Int16)
    /// The adapter never hears the peripheral, and `Connect` through it times out.
    case outOfRange

    /// The typical RSSI of a peripheral whose own value is `base`, at the adapter's report
    /// number `report` (nil when out of range).
    func typicalRSSI(base: Int16, report: Int) -> Int16? {
        switch self {
        case .offset(let offset): Self.clamped(Int(base) + Int(offset))
        case .fixed(let rssi): rssi
        case .alternating(let first, let second): report.isMultiple(of: 2) ? first : second
        case .outOfRange: nil
        }
    }

    /// An RSSI within what a controller reports (-127…20 dBm).
    static func clamped(_ value: Int) -> Int16 { Int16(min(max(value, -127), 20)) }
}

/// Every adapter's range: the ``MockSignal`` each hears each peripheral with.
///
/// Adapters are keyed by their address, not their name: a controller renumbered by a USB
/// reset (`hci1` back as `hci2`) is the same radio in the same place, and hears the same.
/// A value for one peripheral beats the adapter's value for all; without either, an
/// adapter hears every peripheral at the peripheral's own RSSI (``MockSignal/offset(_:)`` 0).
public struct MockRanges: Sendable, Equatable {
    /// The value for every peripheral, by adapter address.
    private var adapterWide: [String: MockSignal] = [:]
    /// Values for one peripheral, by adapter address, then peripheral address.
    private var perPeripheral: [String: [String: MockSignal]] = [:]

    /// Every adapter hears every peripheral at the peripheral's own RSSI.
    public init() {}

    /// Whether every adapter hears every peripheral at its own RSSI (no value was set).
    public var isEmpty: Bool { adapterWide.isEmpty && perPeripheral.isEmpty }

    /// How the adapter at `adapter` (an address) hears the peripheral at `peripheral`.
    public func signal(adapter: String, peripheral: String) -> MockSignal {
        guard !isEmpty else { return .offset(0) }
        let adapter = adapter.uppercased()
        return perPeripheral[adapter]?[peripheral.uppercased()] ?? adapterWide[adapter] ?? .offset(0)
    }

    /// Sets how the adapter at `adapter` (an address) hears the peripheral at `peripheral`,
    /// or every peripheral when it is nil (their own values for it are dropped).
    public mutating func set(_ signal: MockSignal, adapter: String, peripheral: String?) {
        let adapter = adapter.uppercased()
        guard let peripheral else {
            adapterWide[adapter] = signal
            perPeripheral[adapter] = nil
            return
        }
        perPeripheral[adapter, default: [:]][peripheral.uppercased()] = signal
    }
}
