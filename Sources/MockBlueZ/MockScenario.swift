/// What the mock adapter serves: its adapters, the peripherals in radio range, and timings.
///
/// ``standard(thermometers:others:adapters:)`` is the default world: Raspberry Pi
/// thermometers exactly like the reference peripheral, plus devices that are not
/// thermometers, at deterministic addresses.
public struct MockScenario: Sendable {
    /// The Bluetooth controllers (`hci0`, `hci1`, …).
    public var adapters: [MockAdapterSpec]
    /// The peripherals every adapter can see.
    public var peripherals: [MockPeripheral]
    /// How long things take.
    public var timings: MockTimings
    /// The period of a thermometer's notifications after `StartNotify` (the real one: 5 s).
    public var notifyInterval: Duration
    /// Seeds the random walks of temperatures and signal strengths, so runs repeat.
    public var seed: UInt64
    /// Whether writing `"C"`/`"F"` to a thermometer's unit characteristic switches its unit.
    ///
    /// False by default, as on the reference peripheral (its handler compares the byte's
    /// number with "C"/"F", so a write changes nothing); one peripheral in the recorded
    /// trace did switch.
    public var unitWritesTakeEffect: Bool
    /// Whether bluetoothd runs with `--experimental`: its adapters then offer
    /// `AdvertisementMonitorManager1` (passive scanning).
    public var experimental = false
    /// Whether a successful `Connect` announces `Connected=true` in a signal before its reply.
    ///
    /// False by default, as real BlueZ 5.66 did in every connect recorded in
    /// `Tests/Fixtures/traces` (its connect race: the property is true, `Get` says so, but no
    /// `PropertiesChanged` carries it); the e2e rig's earlier runs announced it in about 1
    /// connect in 20 (docs/mock-adapter.md). A client must handle both.
    public var announcesConnect = false
    /// What each adapter hears of each peripheral (by default: every adapter hears every
    /// peripheral at its own ``MockPeripheral/rssi``); see ``setSignal(_:adapter:peripheral:)``.
    public var ranges = MockRanges()
    /// Whether two present adapters may have one address: bad input for a central to be
    /// tested with, refused otherwise (at start and by ``MockFault/addAdapter(_:address:)``).
    public var allowsDuplicateAdapterAddresses = false

    /// Creates a scenario.
    public init(
        adapters: [MockAdapterSpec] = [MockAdapterSpec(index: 0)], peripherals: [MockPeripheral],
        timings: MockTimings = MockTimings(), notifyInterval: Duration = .seconds(5), seed: UInt64 = 1,
        unitWritesTakeEffect: Bool = false
    ) {
        self.adapters = adapters
        self.peripherals = peripherals
        self.timings = timings
        self.notifyInterval = notifyInterval
        self.seed = seed
        self.unitWritesTakeEffect = unitWritesTakeEffect
    }

    /// The default world: `thermometers` Pi thermometers (alternately °F with the code's UUID
    /// spelling and °C with the printed spelling), `others` devices that are not thermometers
    /// (alternately a named heart-rate strap and a nameless beacon), seen by `adapters` adapters.
    public static func standard(thermometers: Int = 2, others: Int = 2, adapters: Int = 1) -> MockScenario {
        let pis = (0..<max(0, thermometers)).map { MockPeripheral.piThermometer(index: $0) }
        let rest = (0..<max(0, others)).map { index in
            index.isMultiple(of: 2) ? MockPeripheral.heartRateStrap(index: index) : MockPeripheral.beacon(index: index)
        }
        return MockScenario(
            adapters: (0..<max(1, adapters)).map { MockAdapterSpec(index: $0) }, peripherals: pis + rest)
    }
}

extension MockScenario {
    /// Adds a flood of decoys after the scenario's peripherals (see ``MockFlood``).
    public mutating func add(_ flood: MockFlood) {
        let count = max(0, flood.devices)
        let named = min(max(0, flood.fakeThermometers), count)
        let hanging = min(max(0, flood.hangingConnects), named)
        for index in 0..<count {
            var decoy = MockPeripheral.decoy(index: index, name: index < named ? "Thermometer" : nil)
            decoy.connectHangs = index < hanging
            decoy.advertisingInterval = flood.interval
            // Staggered over one interval, so the flood arrives at its full rate at once.
            decoy.advertisingStart = flood.start + flood.interval * index / max(count, 1)
            peripherals.append(decoy)
        }
    }
}

/// A flood of devices: many advertisers, some calling themselves "Thermometer" without
/// serving one, some of those never answering `Connect` (issue 25).
public struct MockFlood: Sendable, Equatable {
    /// How many decoys.
    public var devices: Int
    /// How many of them advertise the name "Thermometer" (the first ones).
    public var fakeThermometers: Int
    /// How many of those never answer `Connect`.
    public var hangingConnects: Int
    /// How often each decoy advertises.
    public var interval: Duration
    /// When the flood begins, counted from the mock's start.
    public var start: Duration

    /// Creates a flood.
    public init(
        devices: Int, fakeThermometers: Int = 0, hangingConnects: Int = 0, interval: Duration = .seconds(10),
        start: Duration = .zero
    ) {
        self.devices = devices
        self.fakeThermometers = fakeThermometers
        self.hangingConnects = hangingConnects
        self.interval = interval
        self.start = start
    }
}

/// One Bluetooth controller as bluetoothd shows it.
public struct MockAdapterSpec: Sendable, Equatable {
    /// The kernel's name, such as `hci0`; the object path is `/org/bluez/<name>`.
    public var name: String
    /// The public address.
    public var address: String
    /// The local name (BlueZ uses the host name; without hostnamed, as in the trace, `BlueZ 5.66`).
    public var alias: String

    /// Creates an adapter.
    public init(name: String, address: String, alias: String = "BlueZ 5.66") {
        self.name = name
        self.address = address
        self.alias = alias
    }

    /// `hci<index>` at a deterministic address.
    public init(index: Int) {
        self.init(name: "hci\(index)", address: "00:1A:7D:DA:71:" + hexByte(0x10 + index))
    }
}

/// A peripheral in radio range: what it advertises and what its GATT server holds.
public struct MockPeripheral: Sendable, Equatable {
    /// What the peripheral is.
    public enum Kind: Sendable, Equatable {
        /// A Raspberry Pi running cputemp (see `reference-peripheral.md`).
        case piThermometer(MockThermometer)
        /// A connectable device with a Heart Rate and a Battery service: not a thermometer.
        case heartRateStrap
        /// A non-connectable beacon that only advertises.
        case beacon
        /// A non-connectable sensor broadcasting its measurements (BTHome, pvvx, Ruuvi, …).
        case advertiser(MockAdvertiser)
    }

    /// The device address, `XX:XX:XX:XX:XX:XX`.
    public var address: String
    /// `public` or `random`.
    public var addressType: String
    /// The advertised local name; nil for a nameless device.
    public var advertisedName: String?
    /// The GAP Device Name read after connecting; BlueZ then shows it as `Name`/`Alias`.
    public var gapName: String?
    /// What it is.
    public var kind: Kind
    /// The typical received signal strength, in dBm; reports wander around it.
    public var rssi: Int16
    /// The advertised TX power (`IncludeTxPower`); nil when not advertised.
    public var txPower: Int16?
    /// Advertised service UUIDs (full 128-bit, lowercase).
    public var advertisedUUIDs: [String]
    /// Advertised manufacturer data by company identifier.
    public var manufacturerData: [UInt16: [UInt8]]
    /// Advertised service data by 128-bit UUID.
    public var serviceData: [String: [UInt8]]
    /// Whether it accepts connections (advertises `ADV_IND`).
    public var connectable: Bool
    /// Whether its flags say LE General Discoverable (else only filtered scans report it).
    public var discoverable: Bool
    /// How often it advertises; nil: the timings' ``MockTimings/advertisingInterval``.
    public var advertisingInterval: Duration? = nil
    /// When it first advertises, counted from the mock's start; nil: from the start, the
    /// first scan hearing it 20 ms after the peripheral before it.
    public var advertisingStart: Duration? = nil
    /// Whether `Connect` never answers: the attempt stays pending until `Disconnect` cancels
    /// it, the adapter goes off or bluetoothd stops (then it fails).
    public var connectHangs = false

    /// Creates a peripheral.
    public init(
        address: String, addressType: String = "public", advertisedName: String?, gapName: String?, kind: Kind,
        rssi: Int16, txPower: Int16? = nil, advertisedUUIDs: [String] = [], manufacturerData: [UInt16: [UInt8]] = [:],
        serviceData: [String: [UInt8]] = [:], connectable: Bool = true, discoverable: Bool = true
    ) {
        self.address = address.uppercased()
        self.addressType = addressType
        self.advertisedName = advertisedName
        self.gapName = gapName
        self.kind = kind
        self.rssi = rssi
        self.txPower = txPower
        self.advertisedUUIDs = advertisedUUIDs
        self.manufacturerData = manufacturerData
        self.serviceData = serviceData
        self.connectable = connectable
        self.discoverable = discoverable
    }

    /// A Pi thermometer at `DC:A6:32:00:00:<index+1>`: even indexes in °F with the code's UUID
    /// spelling (the real default), odd ones in °C with the printed spelling.
    public static func piThermometer(index: Int) -> MockPeripheral {
        let even = index.isMultiple(of: 2)
        let thermometer = MockThermometer(
            unit: even ? .fahrenheit : .celsius, spelling: even ? .code : .printed,
            startCelsius: 47.3 + Double(index % 5) * 3.1)
        // cputemp: LocalName "Thermometer", IncludeTxPower, no service UUID; the GAP name is
        // the Pi's adapter name (the trace's rig shows "BlueZ 5.66").
        return MockPeripheral(
            address: "DC:A6:32:00:" + hexByte(index / 256) + ":" + hexByte(index % 256 + 1),
            advertisedName: "Thermometer", gapName: "BlueZ 5.66", kind: .piThermometer(thermometer),
            rssi: Int16(-52 - (index % 3) * 14), txPower: 7)
    }

    /// A named heart-rate strap (random static address), advertising the Heart Rate service.
    public static func heartRateStrap(index: Int) -> MockPeripheral {
        MockPeripheral(
            address: "F0:5E:CD:00:" + hexByte(index / 256) + ":" + hexByte(index % 256 + 1), addressType: "random",
            advertisedName: "HRM-Pro \(index + 1)", gapName: "HRM-Pro \(index + 1)", kind: .heartRateStrap,
            rssi: Int16(-71 - (index % 3) * 4), txPower: nil, advertisedUUIDs: [GattUUID.sig(0x180D)])
    }

    /// A nameless, non-connectable iBeacon (manufacturer data of company 0x004C).
    public static func beacon(index: Int) -> MockPeripheral {
        let payload: [UInt8] =
            [0x02, 0x15]  // iBeacon type and length
            + [0xE2, 0xC5, 0x6D, 0xB5, 0xDF, 0xFB, 0x48, 0xD2, 0xB0, 0x60, 0xD0, 0xF5, 0xA7, 0x10, 0x96, 0xE0]
            + [0x00, UInt8(index % 256), 0x00, 0x01, 0xC5]  // major, minor, measured power (-59 dBm)
        return MockPeripheral(
            address: "C8:47:8C:00:" + hexByte(index / 256) + ":" + hexByte(index % 256 + 1), addressType: "random",
            advertisedName: nil, gapName: nil, kind: .beacon, rssi: Int16(-80 - (index % 3) * 3),
            manufacturerData: [0x004C: payload], connectable: false, discoverable: true)
    }

    /// A decoy of a flood at `5E:C0:<index>`: a connectable device with a Heart Rate service,
    /// advertising `name` (or no name), that is no thermometer whatever it calls itself.
    public static func decoy(index: Int, name: String?) -> MockPeripheral {
        MockPeripheral(
            address: "5E:C0:00:" + hexByte(index >> 16) + ":" + hexByte(index >> 8) + ":" + hexByte(index),
            addressType: "random", advertisedName: name, gapName: name, kind: .heartRateStrap,
            rssi: Int16(-75 - index % 15), advertisedUUIDs: [GattUUID.sig(0x180D)])
    }

    /// The thermometer details, for a Pi thermometer.
    public var thermometer: MockThermometer? {
        if case .piThermometer(let thermometer) = kind { return thermometer }
        return nil
    }
}

/// A Pi thermometer's settings.
public struct MockThermometer: Sendable, Equatable {
    /// The unit it reports in (the real default: Fahrenheit).
    public var unit: MockTemperatureUnit
    /// Which spelling of the 128-bit UUIDs its GATT server uses.
    public var spelling: MockUUIDSpelling
    /// The CPU temperature at start, in °C.
    public var startCelsius: Double
    /// How the temperature moves.
    public var pattern: MockTemperaturePattern
    /// The Current Time Service it offers, if any.
    public var currentTime: MockCurrentTime?

    /// Creates thermometer settings.
    public init(
        unit: MockTemperatureUnit = .fahrenheit, spelling: MockUUIDSpelling = .code, startCelsius: Double = 47.3,
        pattern: MockTemperaturePattern = .drift
    ) {
        self.unit = unit
        self.spelling = spelling
        self.startCelsius = startCelsius
        self.pattern = pattern
    }
}

/// The unit letter a thermometer sends.
public enum MockTemperatureUnit: String, Sendable, Equatable {
    case fahrenheit = "F"
    case celsius = "C"
}

/// The two spellings of the thermometer's UUID suffix (see `reference-peripheral.md`).
public enum MockUUIDSpelling: String, Sendable, Equatable {
    /// `…-3e5b444bc3cf`, what cputemp's code registers (real Pis).
    case code
    /// `…-3e5b444b3c3f`, what its README and the iOS app derived from it print.
    case printed

    /// The suffix after the first group.
    var suffix: String {
        switch self {
        case .code: "710e-4a5b-8d75-3e5b444bc3cf"
        case .printed: "710e-4a5b-8d75-3e5b444b3c3f"
        }
    }
}

/// How a thermometer's temperature moves from one sample to the next.
public enum MockTemperaturePattern: String, Sendable, Equatable, CaseIterable {
    /// A random walk of plausible CPU temperatures within 40–65 °C.
    case drift
    /// Stays where it is (or where ``MockBluetoothd/setTemperature(_:address:)`` puts it).
    case constant
    /// Steps 0.1 °C per sample through 40.0–65.0 °C and wraps, so a consumer can spot a lost
    /// notification (benchmarks).
    case counter
}

/// How long bluetoothd and the peripherals take. The defaults are short, near the real
/// timings where tests don't mind; ``fast`` suits tests.
public struct MockTimings: Sendable, Equatable {
    /// `Connect` → link up (the reply); real: 0.1–0.2 s.
    public var connect: Duration = .milliseconds(80)
    /// Link up → `ServicesResolved=true`; real: 0.6–2 s.
    public var servicesResolved: Duration = .milliseconds(250)
    /// `Disconnect` → `ServicesResolved=false` and the reply; real: ~2.2 s.
    public var disconnect: Duration = .milliseconds(50)
    /// The reply of `Disconnect` → `Connected=false`; real: ~70 ms.
    public var disconnectSettle: Duration = .milliseconds(20)
    /// A connection attempt to a device that does not answer, until it is given up.
    public var connectTimeout: Duration = .seconds(4)
    /// `StartDiscovery`'s reply → `Discovering=true`; real: ~50 ms.
    public var discoveryStart: Duration = .milliseconds(20)
    /// `Discovering=true` → the first advertisement of the first peripheral (others follow
    /// 20 ms apart); real: 0.13–0.27 s.
    public var firstAdvertisement: Duration = .milliseconds(40)
    /// How often each peripheral's advertisement is processed while scanning.
    public var advertisingInterval: Duration = .seconds(1)
    /// `StopDiscovery`'s reply → RSSI invalidations and `Discovering=false`.
    public var discoveryStop: Duration = .milliseconds(20)
    /// An unconnected device is removed this long after it was last seen (`TemporaryTimeout`).
    public var temporaryTimeout: Duration = .seconds(30)
    /// A GATT read, write or notify registration round trip.
    public var gattOperation: Duration = .milliseconds(5)
    /// A new adapter (or bluetoothd's start) → `Powered=true` (`AutoEnable`).
    public var autoEnable: Duration = .milliseconds(100)
    /// The peripheral's GATT app goes away → its objects are removed; real: 50–80 ms.
    public var gattRemoval: Duration = .milliseconds(60)
    /// The peripheral's GATT app is away this long before it registers again.
    public var gattRestartGap: Duration = .milliseconds(500)

    /// Creates the default timings.
    public init() {}

    /// Short timings for tests: everything within a few tens of milliseconds.
    public static var fast: MockTimings {
        var timings = MockTimings()
        timings.connect = .milliseconds(20)
        timings.servicesResolved = .milliseconds(40)
        timings.disconnect = .milliseconds(10)
        timings.disconnectSettle = .milliseconds(10)
        timings.connectTimeout = .milliseconds(300)
        timings.discoveryStart = .milliseconds(5)
        timings.firstAdvertisement = .milliseconds(10)
        timings.advertisingInterval = .milliseconds(100)
        timings.discoveryStop = .milliseconds(5)
        timings.temporaryTimeout = .seconds(30)
        timings.gattOperation = .milliseconds(1)
        timings.autoEnable = .milliseconds(20)
        timings.gattRemoval = .milliseconds(20)
        timings.gattRestartGap = .milliseconds(100)
        return timings
    }
}

/// Two uppercase hex digits.
func hexByte(_ value: Int) -> String {
    let digits = Array("0123456789ABCDEF")
    let byte = value & 0xFF
    return String([digits[byte >> 4], digits[byte & 0xF]])
}
