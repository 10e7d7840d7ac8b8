/// A fault to inject, each shaped as real BlueZ 5.66 shows it (see `bluez-central-notes.md`).
public enum MockFault: Sendable, Equatable {
    /// The adapter is powered off: devices lose their links (`ServicesResolved=false`,
    /// `Connected=false`), notifying characteristics stop (`Notifying=false`), then
    /// `Powered=false` and `Discovering=false`. Calls meanwhile fail with `NotReady`.
    case powerOff(adapter: String)
    /// The adapter is powered on again.
    case powerOn(adapter: String)
    /// The controller disappears: its GATT objects, devices and the adapter itself are removed.
    case removeAdapter(String)
    /// A removed (or new) controller appears: `InterfacesAdded` with `Powered=false` and the
    /// devices bluetoothd stored for its address, then `Powered=true` (AutoEnable).
    ///
    /// `address` is the controller's identity: a removed `hci1` back as `hci2` (a USB reset
    /// renumbers it) keeps its address when given it. Without one, a known name keeps its
    /// address and a new `hciN` gets `00:1A:7D:DA:71:1N`'s pattern. An address a present
    /// adapter has is refused unless ``MockScenario/allowsDuplicateAdapterAddresses``.
    case addAdapter(String, address: String? = nil)
    /// The peripheral drops the link: one `PropertiesChanged` with `ServicesResolved=false`
    /// and `Connected=false`. Notify sessions survive and resume on the next connection.
    case remoteDisconnect(address: String, adapter: String?)
    /// The peripheral's GATT application restarts while the link stays up: its objects are
    /// removed, then come back at new handle paths with `Notifying=false`.
    case gattRestart(address: String)
    /// The next `times` connection attempts fail (to `address`, or any device when nil).
    case failConnect(times: Int, error: MockConnectFailure, address: String?)
    /// The next `times` connections succeed without the `Connected=true` signal (BlueZ's
    /// connect race: `Get` shows `true`).
    case connectRace(times: Int, address: String?)
    /// The next `times` `StopDiscovery` calls end the caller's session, if it still has one,
    /// and answer `org.bluez.Error.InProgress`, as newer BlueZ does once the session is gone.
    case stopDiscoveryInProgress(times: Int)
    /// The next `times` `StartDiscovery` calls answer `org.bluez.Error.InProgress` and leave
    /// the caller without a session, as bluetoothd 5.66 does when the kernel refuses to start
    /// discovery (mgmt Busy; seen in the real-BlueZ rig right after a `StopDiscovery`).
    /// On `adapter` only when given (every adapter when nil); `times` `Int.max` refuses
    /// until the faults are cleared (an adapter that refuses discovery).
    case startDiscoveryBusy(times: Int, adapter: String? = nil)
    /// The next `times` connections never reach `ServicesResolved=true`.
    case servicesNeverResolve(times: Int, address: String?)
    /// Replies to org.bluez methods (all, or those named in `methods`, such as `Connect` or
    /// `ReadValue`) come `delay` late, `times` times (forever when nil).
    case slowReplies(delay: Duration, times: Int?, methods: Set<String>)
    /// The next `times` temperature values (reads and notifications; forever when nil) are
    /// malformed.
    case malformedValues(MockMalformedValue, times: Int?, address: String?)
    /// The next `times` advertisements of `address` (of every device when nil; forever when
    /// `times` is nil, until the faults are cleared) are not heard: the device is out of range.
    case outOfRange(times: Int?, address: String?)
    /// Sets how `adapter` (a name or an address) hears the peripheral at `address` (every
    /// peripheral when nil): the adapter's range, kept by the adapter's address and by the
    /// world (``MockBluetoothd/clearFaults()`` leaves it). ``MockSignal/outOfRange``: never heard, and
    /// `Connect` through that adapter times out.
    case setSignal(MockSignal, adapter: String, address: String?)
    /// The peripheral at `address` jumps between two adapters at every advertisement:
    /// `strong` dBm on `strongOn` and `weak` on `weakOn`, then the reverse (``MockSignal/alternating(first:second:)``).
    case flapSignal(address: String, strongOn: String, weakOn: String, strong: Int16, weak: Int16)
    /// bluetoothd stops cleanly (SIGTERM): `Connected=false`, `InterfacesRemoved` for
    /// everything, then the name is released; it starts again after `restartAfter` if set.
    case stopBluetoothd(restartAfter: Duration?)
    /// bluetoothd crashes (SIGKILL): only the name goes (the connection closes without a
    /// signal); it starts again after `restartAfter` if set.
    case crashBluetoothd(restartAfter: Duration?)
    /// bluetoothd starts (again): a new connection and unique name, fresh objects, no
    /// sessions, adapters `Powered=true` after AutoEnable.
    case startBluetoothd
    /// The adapter's controller goes silent while bluetoothd still says `Discovering=true`
    /// (a Pi's UART-attached controller): no advertising reports, no notifications, and
    /// `Connect` times out. Only `cure` (or a stronger one) ends it.
    case silence(adapter: String, cure: MockSilenceCure)
    /// The controller is reset below bluetoothd (HCI down and up, as `hciconfig hciN reset`):
    /// any silence ends, and bluetoothd shows the adapter powered off (links lost), then on.
    case controllerReset(adapter: String)
    /// A memory sensor's fault (docs/sensor-memory.md): a download cut short, a corrupt
    /// record, a clock write refused, a counter wrap, a restart.
    case sensorMemory(MockMemoryFault, address: String)
}

/// What ends a controller's silence; each cure also ends the silences the ones before it end.
public enum MockSilenceCure: String, Sendable, Equatable, CaseIterable, Comparable {
    /// The controller's LE scan stopped (the last discovery session ended) and started again.
    case restartDiscovery = "restart-discovery"
    /// The adapter powered off and on (`Adapter1.Powered`).
    case powerCycle = "power-cycle"
    /// Only a reset of the controller below bluetoothd (``MockFault/controllerReset(adapter:)``).
    case controllerReset = "controller-reset"

    /// Whether a cure of this strength ends a silence that needs `needed`.
    public static func < (lhs: MockSilenceCure, rhs: MockSilenceCure) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// How a failing `Connect` fails.
public enum MockConnectFailure: String, Sendable, Equatable, CaseIterable {
    /// `org.bluez.Error.Failed "le-connection-abort-by-local"` after the link came up and
    /// dropped (`Connected=true`, the error, then `Connected=false`), as on a Pi's combined
    /// Wi-Fi/BT chip.
    case abortedByLocal = "abort"
    /// `org.bluez.Error.InProgress`, at once.
    case inProgress = "in-progress"
    /// `org.bluez.Error.AlreadyConnected` (newer BlueZ), with the link up: `Connected=true`
    /// and services resolving as after a successful `Connect`.
    case alreadyConnected = "already-connected"
    /// `org.bluez.Error.AlreadyConnected` at once, with no link (`Connected` stays false): a
    /// stale answer, not to be taken as connected.
    case alreadyConnectedWithoutLink = "already-connected-no-link"
}

/// A malformed temperature value.
public enum MockMalformedValue: String, Sendable, Equatable, CaseIterable {
    /// No bytes at all.
    case empty
    /// Bytes that are not UTF-8.
    case nonUTF8 = "non-utf8"
    /// `"nan F"`.
    case nan
    /// 600 bytes of digits (more than any GATT value may hold: 512).
    case oversized = "long"
    /// A number with an unknown unit letter, `"45.0 K"`.
    case unknownUnit = "unknown-unit"

    /// The bytes the peripheral sends.
    public var bytes: [UInt8] {
        switch self {
        case .empty: []
        case .nonUTF8: [0xFF, 0xFE, 0x34, 0x35, 0x2E, 0x30, 0x20, 0xC3, 0x28]
        case .nan: Array("nan F".utf8)
        case .oversized: Array(repeating: UInt8(ascii: "7"), count: 600)
        case .unknownUnit: Array("45.0 K".utf8)
        }
    }
}

/// Faults waiting to strike, with how many times each still will.
struct FaultPlan: Sendable {
    /// A fault armed for `remaining` more occasions (nil: until cleared), for one address or all.
    struct Armed<Value: Sendable>: Sendable {
        var value: Value
        var remaining: Int?
        var address: String?
    }

    var connectFailures: [Armed<MockConnectFailure>] = []
    var connectRaces: [Armed<Void>] = []
    var unresolvedServices: [Armed<Void>] = []
    var stopDiscoveryInProgress: [Armed<Void>] = []
    var startDiscoveryBusy: [Armed<Void>] = []
    var malformedValues: [Armed<MockMalformedValue>] = []
    var slowReplies: [Armed<(Duration, Set<String>)>] = []
    var outOfRange: [Armed<Void>] = []

    /// Takes one occasion of the first fault in `list` that applies to `address`.
    static func take<Value>(_ list: inout [Armed<Value>], address: String?) -> Value? {
        guard
            let index = list.firstIndex(where: { $0.address == nil || $0.address == address })
        else { return nil }
        let value = list[index].value
        if let remaining = list[index].remaining {
            if remaining <= 1 { list.remove(at: index) } else { list[index].remaining = remaining - 1 }
        }
        return value
    }

    /// The delay before replying to `method`, if a slow-replies fault applies.
    mutating func replyDelay(for method: String) -> Duration? {
        guard
            let index = slowReplies.firstIndex(where: { $0.value.1.isEmpty || $0.value.1.contains(method) })
        else { return nil }
        let delay = slowReplies[index].value.0
        if let remaining = slowReplies[index].remaining {
            if remaining <= 1 {
                slowReplies.remove(at: index)
            } else {
                slowReplies[index].remaining = remaining - 1
            }
        }
        return delay
    }
}
