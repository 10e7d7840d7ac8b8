public import BlectlProtocol
public import SensorModel

// Builders of the values hub and socket tests feed and check, with addresses as text.

extension Measurement {
    /// A Fahrenheit value as the reference peripheral sends it.
    public static func fahrenheit(_ value: Double) -> Measurement {
        let celsius = ((value - 32) * 5 / 9 * 100).rounded() / 100
        return Measurement(
            profile: "pi-cputemp", quantities: Quantities([.temperature: celsius]), unit: .fahrenheit,
            raw: "\(value) F")
    }

    /// A Celsius value with its text.
    public static func celsius(_ value: Double, raw: String? = nil, profile: ProfileID = "pi-cputemp") -> Measurement {
        Measurement(
            profile: profile, quantities: Quantities([.temperature: value]), unit: .celsius, raw: raw ?? "\(value) C")
    }
}

/// Builders for the events a test feeds the hub, their addresses written as literals.
extension SensorEvent {
    /// A Fahrenheit reading as the reference peripheral sends it.
    public static func fahrenheit(_ address: BluetoothAddress, _ value: Double, name: String? = "Thermometer")
        -> SensorEvent
    {
        .reading(address, name: name, .fahrenheit(value))
    }

    /// A value that was not a temperature.
    public static func readingError(address: BluetoothAddress, detail: String, raw: [UInt8]) -> SensorEvent {
        .readingError(address, name: nil, ReadingError(.malformed, raw: raw, detail: detail))
    }

    /// The adapter changed state.
    public static func adapterState(adapter: String, state: AdapterState) -> SensorEvent {
        .adapterState(adapter: adapter, state, reason: nil)
    }

    /// A peripheral advertised.
    public static func peripheralSeen(address: BluetoothAddress, name: String?, rssi: Int?, isThermometer: Bool)
        -> SensorEvent
    {
        .peripheralSeen(
            Sighting(address: address, name: name, rssi: rssi, isThermometer: isThermometer))
    }

    /// BlueZ dropped a peripheral.
    public static func peripheralLost(address: BluetoothAddress) -> SensorEvent { .peripheralLost(address) }

    /// A thermometer connected.
    public static func connected(address: BluetoothAddress, name: String?) -> SensorEvent {
        .connected(address, name: name)
    }

    /// A thermometer's link went down.
    public static func disconnected(address: BluetoothAddress, reason: String) -> SensorEvent {
        .disconnected(address, reason: reason)
    }
}

extension Reading {
    /// A temperature reading from the Pi's profile.
    public init(
        seq: UInt64, time: Timestamp, address: BluetoothAddress, name: String?, celsius: Double, raw: String,
        unit: TemperatureUnit, profile: ProfileID = "pi-cputemp"
    ) {
        self.init(
            seq: seq, time: time, address: address, name: name,
            measurement: Measurement(
                profile: profile, quantities: Quantities([.temperature: celsius]), unit: unit, raw: raw))
    }
}

/// Short ways to the measurement's fields, as tests check them.
extension Reading {
    /// The value as sent.
    public var raw: String { measurement.raw }
    /// The unit the device sent.
    public var unit: TemperatureUnit { measurement.unit }
}

/// Short ways to the reading's fields, as tests check them.
extension ReadingReport {
    /// The reading's sequence number.
    public var seq: UInt64 { reading.seq }
    /// The temperature.
    public var celsius: Double? { reading.celsius }
    /// The value as sent.
    public var raw: String { reading.raw }
    /// The device's name.
    public var name: String? { reading.name }
}
