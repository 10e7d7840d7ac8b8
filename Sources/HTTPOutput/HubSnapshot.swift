import BlectlProtocol
import ReadingHub
import SensorModel

/// The hub's state and the tracker's at one moment: what the page and /metrics show.
struct HubSnapshot: Sendable {
    /// The hub's `status` (with what outputs add: the history store's rows).
    var status: StatusResult
    /// The peripheral table.
    var peripherals: [PeripheralInfo]
    /// What the output counted from events.
    var tracked: [TrackedDevice]
    /// When it was taken.
    var time: Timestamp

    /// Takes one from `hub` and `tracker`.
    static func take(hub: Hub, tracker: DeviceTracker, now: Timestamp) async -> HubSnapshot {
        let status = await hub.status()
        let peripherals = await hub.peripherals()
        return HubSnapshot(status: status, peripherals: peripherals, tracked: tracker.snapshot(), time: now)
    }

    /// The devices to show: thermometers in the peripheral table and every device with a
    /// reading, by name, then address.
    var devices: [DeviceView] {
        let table = Dictionary(peripherals.map { ($0.address, $0) }, uniquingKeysWith: { first, _ in first })
        let tracked = Dictionary(self.tracked.map { ($0.address, $0) }, uniquingKeysWith: { first, _ in first })
        let addresses = Set(peripherals.filter(\.thermometer).map(\.address))
            .union(self.tracked.filter { $0.latest != nil }.map(\.address))
        return addresses.map { address in
            DeviceView(address: address, peripheral: table[address], tracked: tracked[address], now: time)
        }.sorted { ($0.name ?? "\u{10FFFF}", $0.address) < ($1.name ?? "\u{10FFFF}", $1.address) }
    }
}

/// One device as the page and /metrics show it.
struct DeviceView: Sendable {
    var address: BluetoothAddress
    var name: String?
    var peripheral: PeripheralInfo?
    var tracked: TrackedDevice?
    /// Whether its newest reading is too old to count as current (``TrackedDevice/isStale(at:)``).
    var isStale: Bool

    init(address: BluetoothAddress, peripheral: PeripheralInfo?, tracked: TrackedDevice?, now: Timestamp) {
        self.address = address
        self.name = peripheral?.name ?? tracked?.name ?? tracked?.latest?.name
        self.peripheral = peripheral
        self.tracked = tracked
        self.isStale = tracked?.isStale(at: now) ?? true
    }

    /// Its newest reading, if the output saw one.
    var latest: Reading? { tracked?.latest }

    /// Its current values: each probe's newest reading on a device with several, else its newest.
    var currentReadings: [Reading] { tracked?.currentReadings ?? [] }
}
