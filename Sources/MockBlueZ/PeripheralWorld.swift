import ConcurrencySupport
import DBusCore

/// The physical world around bluetoothd: the peripherals' state (temperatures, units,
/// their GATT applications), armed faults, and what bluetoothd keeps on disk.
///
/// It outlives any one bluetoothd (a crash does not reset a Pi's temperature), so it is
/// shared between bluetoothd instances and the control interface behind a mutex.
final class PeripheralWorld: Sendable {
    private let state: Locked<WorldState>

    init(scenario: MockScenario) {
        state = Locked(WorldState(scenario: scenario))
    }

    /// Runs `body` with exclusive access to the state.
    func withState<T>(_ body: (inout WorldState) throws -> T) rethrows -> T {
        try state.withLock(body)
    }
}

/// A device bluetoothd remembers across restarts (it was connected and not removed since).
struct StoredDevice: Sendable, Equatable {
    var name: String?
    var uuids: [String]
}

/// The mutable part of the world.
struct WorldState: Sendable {
    var peripherals: [PeripheralState]
    var faults = FaultPlan()
    var notifyInterval: Duration
    var unitWritesTakeEffect: Bool
    /// Devices bluetoothd stored, by adapter address (its storage directory) and device address.
    var stored: [String: [String: StoredDevice]] = [:]
    /// Controllers that hear nothing, by adapter name, with what cures each (a controller's
    /// state: it outlives a bluetoothd restart).
    var silentControllers: [String: MockSilenceCure] = [:]
    /// What each adapter hears of each peripheral, by adapter address (a radio's place: it
    /// outlives a bluetoothd restart and a renumbering).
    var ranges: MockRanges
    var random: SplitMix64
    /// Decide which advertisements are lost (``MockAdvertiser/loss``), by peripheral: sequences
    /// of their own, so that a loss leaves the random walks as they are, and each sensor's
    /// losses are the same run after run whatever the order the others advertise in.
    var lossRandom: [SplitMix64]
    /// `StartDiscovery` calls accepted so far, by every bluetoothd of the run.
    var startDiscoveryCalls = 0
    /// When the world began: peripherals' ``MockPeripheral/advertisingStart`` counts from here.
    let started = ContinuousClock.now

    init(scenario: MockScenario) {
        peripherals = scenario.peripherals.map(PeripheralState.init)
        notifyInterval = scenario.notifyInterval
        unitWritesTakeEffect = scenario.unitWritesTakeEffect
        ranges = scenario.ranges
        random = SplitMix64(seed: scenario.seed)
        // Seeds drawn from a generator, not the seed plus the index: SplitMix64 steps its state
        // by a constant, so neighbouring seeds would give every sensor the same sequence shifted.
        var seeds = SplitMix64(seed: scenario.seed ^ 0x1055_1055_1055_1055)
        lossRandom = scenario.peripherals.map { _ in SplitMix64(seed: seeds.next()) }
    }

    func index(of address: String) -> Int? {
        peripherals.firstIndex { $0.spec.address == address.uppercased() }
    }

    /// The next temperature value of thermometer `index` (a sample moves its pattern on), or a
    /// malformed value when such a fault is armed.
    mutating func nextTemperatureValue(_ index: Int) -> [UInt8] {
        let address = peripherals[index].spec.address
        if let malformed = FaultPlan.take(&faults.malformedValues, address: address) { return malformed.bytes }
        guard var source = peripherals[index].temperature else { return [] }
        let celsius = source.next(using: &random)
        peripherals[index].temperature = source
        peripherals[index].lastSample = .now
        return Array(temperatureText(celsius: celsius, unit: peripherals[index].unit).utf8)
    }

    /// The temperature value a read returns: the current sample. A drifting CPU keeps
    /// drifting for a reader that never subscribes (a step per second at most); the
    /// counter pattern moves only with notifications, so a consumer can count them.
    mutating func currentTemperatureValue(_ index: Int, now: ContinuousClock.Instant = .now) -> [UInt8] {
        let address = peripherals[index].spec.address
        if let malformed = FaultPlan.take(&faults.malformedValues, address: address) { return malformed.bytes }
        guard var source = peripherals[index].temperature else { return [] }
        if source.pattern == .drift, now - peripherals[index].lastSample >= .seconds(1) {
            _ = source.next(using: &random)
            peripherals[index].temperature = source
            peripherals[index].lastSample = now
        }
        return Array(temperatureText(celsius: source.celsius, unit: peripherals[index].unit).utf8)
    }

    /// A small random step for a signal-strength walk.
    mutating func jitter(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
}

/// One peripheral's state.
struct PeripheralState: Sendable {
    let spec: MockPeripheral
    var temperature: TemperatureSource?
    var unit: MockTemperatureUnit
    /// Where the GATT application's handles start; grows with every re-registration.
    var applicationBase = GattDatabase.firstApplicationHandle
    /// Whether the GATT application is registered (false during a restart's gap).
    var applicationUp = true
    /// The current received signal strength (a walk around the spec's value).
    var rssi: Int16
    /// The last heart rate sent (a heart-rate strap).
    var heartRate: UInt8 = 72
    /// When the temperature last moved.
    var lastSample = ContinuousClock.now
    /// An advertising sensor's measurement and counter.
    var advertiser: AdvertiserState?
    /// When it last advertised something new (``WorldState/hear(_:adapter:report:defaultInterval:now:)``).
    var advertisedAt: ContinuousClock.Instant?
    /// A memory sensor's clock and records.
    var memory: MemorySensorState?
    /// A thermometer's Current Time clock.
    var currentTime: CurrentTimeClock?

    init(spec: MockPeripheral) {
        self.spec = spec
        temperature = spec.thermometer.map { TemperatureSource(celsius: $0.startCelsius, pattern: $0.pattern) }
        unit = spec.thermometer?.unit ?? .celsius
        rssi = spec.rssi
        advertiser = spec.advertiser.map(AdvertiserState.init)
        currentTime = spec.thermometer?.currentTime.map { CurrentTimeClock($0) }
        if let advertiser = spec.advertiser, let memory = advertiser.memory {
            self.memory = MemorySensorState(memory, startCelsius: advertiser.startCelsius)
        }
    }

    /// The GATT database as it is now.
    var database: GattDatabase {
        GattDatabase.of(spec, applicationBase: applicationBase, applicationUp: applicationUp)
    }
}
