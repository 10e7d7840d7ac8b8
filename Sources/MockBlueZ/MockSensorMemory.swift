/// A sensor's memory and clock (docs/sensor-memory.md): as the pvvx ATC_MiThermometer firmware
/// keeps them, a record every ``interval`` in a ring of flash sectors, stamped by a clock of
/// its own that may be off, served over the command characteristic 0x1F10/0x1F1F; or as
/// Xiaomi's stock firmware does (``firmware``), a record at every whole hour of its clock,
/// served over ebe0ccb0.
public struct MockSensorMemory: Sendable, Equatable {
    /// The firmware whose protocol the sensor speaks.
    public enum Firmware: Sendable, Equatable {
        /// pvvx/ATC: 0x1F10/0x1F1F, records newest first.
        case pvvx
        /// Xiaomi's stock LYWSD03MMC firmware: ebe0ccb0, indexed records oldest first, an
        /// hour's highest and lowest, stamped at the end of the hour.
        case xiaomiStock
        /// Xiaomi's stock LYWSD02 firmware: as ``xiaomiStock``, but records in 0.01 °C, a
        /// 5-byte clock (its display's zone hour after the time), a 3-byte live value, and
        /// MiBeacon frames with the LYWSD02's product id.
        case xiaomiStockLYWSD02
        /// ThermoPro's TP358: a display clock in local time set by a write to `…2b11`, never
        /// read back; its records are not served.
        case thermoProClock
    }

    /// The protocol it speaks.
    public var firmware = Firmware.pvvx
    /// Whether it is Xiaomi's stock firmware, of either model.
    var isXiaomiStock: Bool { firmware == .xiaomiStock || firmware == .xiaomiStockLYWSD02 }
    /// A record every this long (the firmware's default on a LYWSD03MMC: 30 minutes).
    public var interval: Duration = .seconds(30 * 60)
    /// How far the sensor's clock is ahead of the gateway's at the start, in seconds
    /// (negative: behind).
    public var clockDrift: Int64 = 0
    /// Records already in memory at the start, an interval apart back from it.
    public var preloaded = 0
    /// Flash sectors in the ring (52 on 512 KiB flash).
    public var sectors = 52
    /// Records per sector (409 of 10 bytes in 4 KiB).
    public var recordsPerSector = 409
    /// One record notification every this long in a download (one per connection event).
    public var pace: Duration = .milliseconds(15)

    /// The firmware's defaults.
    public init() {}

    /// The stock firmware's: a record an hour.
    public static var xiaomiStock: MockSensorMemory {
        var memory = MockSensorMemory()
        memory.firmware = .xiaomiStock
        memory.interval = .seconds(3600)
        return memory
    }

    /// The most records a reader sees: the closed sectors and a full open one.
    public var capacity: Int { (sectors - 1) * recordsPerSector + recordsPerSector - 1 }
}

/// A fault of a memory sensor (``MockFault/sensorMemory(_:address:)``).
public enum MockMemoryFault: Sendable, Equatable {
    /// The next download drops the link after sending `afterRecords` records.
    case disconnectDuringDownload(afterRecords: Int)
    /// Record `number` of the next download (counting from 1 as sent) reads as erased flash.
    case corruptRecord(number: Int)
    /// The next `times` clock writes fail (`org.bluez.Error.NotAuthorized`, as with a pin code set).
    case refuseClockWrite(times: Int)
    /// The advertising frame counter jumps to 255: the next measurement wraps it to 0.
    case counterWrap
    /// The sensor restarts: links drop, the memory is cleared, the clock starts again from 0
    /// (1970, as the firmware does with an empty memory), the frame counter restarts.
    case reset
}

extension MockPeripheral {
    /// Memory sensor `index`: a pvvx sensor at `A4:C1:38:EE:<index>` named `ATC_EE…`, that
    /// advertises (pvvx format), accepts connections and keeps `memory`.
    public static func memorySensor(index: Int, memory: MockSensorMemory) -> MockPeripheral {
        let suffix = hexByte(index >> 8) + hexByte(index + 1)
        var advertiser = MockAdvertiser(format: .pvvx, startCelsius: 20 + Double(index % 5))
        advertiser.memory = memory
        return MockPeripheral(
            address: "A4:C1:38:EE:" + hexByte(index >> 8) + ":" + hexByte(index + 1), advertisedName: "ATC_EE" + suffix,
            gapName: "ATC_EE" + suffix, kind: .advertiser(advertiser), rssi: Int16(-58 - (index % 4) * 5),
            connectable: true)
    }
}

extension MockPeripheral {
    /// Stock memory sensor `index`: a LYWSD03MMC with Xiaomi's firmware at
    /// `A4:C1:38:EF:<index>`, advertising plain MiBeacon frames, connectable, keeping `memory`
    /// (its ``MockSensorMemory/firmware`` set to ``MockSensorMemory/Firmware/xiaomiStock``).
    public static func stockMemorySensor(index: Int, memory: MockSensorMemory) -> MockPeripheral {
        var advertiser = MockAdvertiser(format: .miBeacon, startCelsius: 20 + Double(index % 5))
        var memory = memory
        if !memory.isXiaomiStock { memory.firmware = .xiaomiStock }
        advertiser.memory = memory
        let name = memory.firmware == .xiaomiStockLYWSD02 ? "LYWSD02" : "LYWSD03MMC"
        return MockPeripheral(
            address: "A4:C1:38:EF:" + hexByte(index >> 8) + ":" + hexByte(index + 1), advertisedName: name,
            gapName: name, kind: .advertiser(advertiser), rssi: Int16(-60 - (index % 4) * 5), connectable: true)
    }
}

extension MockPeripheral {
    /// ThermoPro clock sensor `index`: a TP358 at `49:22:05:EC:<index>` named `TP358 (…)`,
    /// advertising the ThermoPro format, connectable, its display clock `memory`'s (its
    /// ``MockSensorMemory/firmware`` set to ``MockSensorMemory/Firmware/thermoProClock``).
    public static func thermoProClockSensor(index: Int, memory: MockSensorMemory) -> MockPeripheral {
        var advertiser = MockAdvertiser(format: .thermoPro, startCelsius: 20 + Double(index % 5))
        var memory = memory
        memory.firmware = .thermoProClock
        advertiser.memory = memory
        let suffix = hexByte(index >> 8) + hexByte(index + 1)
        return MockPeripheral(
            address: "49:22:05:EC:" + hexByte(index >> 8) + ":" + hexByte(index + 1),
            advertisedName: "TP358 (" + suffix + ")", gapName: "TP358 (" + suffix + ")", kind: .advertiser(advertiser),
            rssi: Int16(-62 - (index % 4) * 5), connectable: true)
    }
}

extension MockScenario {
    /// Adds `count` ThermoPro clock sensors (``MockPeripheral/thermoProClockSensor(index:memory:)``),
    /// advertising every `interval` (nil: the timings' interval).
    public mutating func addThermoProClockSensors(_ count: Int, memory: MockSensorMemory, interval: Duration? = nil) {
        for index in 0..<max(0, count) {
            var sensor = MockPeripheral.thermoProClockSensor(index: index, memory: memory)
            sensor.advertisingInterval = interval
            peripherals.append(sensor)
        }
    }

    /// Adds `count` stock memory sensors (``MockPeripheral/stockMemorySensor(index:memory:)``),
    /// advertising every `interval` (nil: the timings' interval).
    public mutating func addStockMemorySensors(_ count: Int, memory: MockSensorMemory, interval: Duration? = nil) {
        for index in 0..<max(0, count) {
            var sensor = MockPeripheral.stockMemorySensor(index: index, memory: memory)
            sensor.advertisingInterval = interval
            peripherals.append(sensor)
        }
    }

    /// Adds `count` memory sensors (``MockPeripheral/memorySensor(index:memory:)``),
    /// advertising every `interval` (nil: the timings' interval).
    public mutating func addMemorySensors(_ count: Int, memory: MockSensorMemory, interval: Duration? = nil) {
        for index in 0..<max(0, count) {
            var sensor = MockPeripheral.memorySensor(index: index, memory: memory)
            sensor.advertisingInterval = interval
            peripherals.append(sensor)
        }
    }
}
