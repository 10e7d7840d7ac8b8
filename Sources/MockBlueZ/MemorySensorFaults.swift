/// The faults of memory sensors (``MockMemoryFault``), on the world and, for those that drop
/// links, on the running bluetoothd.
enum MemorySensorFaultActions {
    /// Arms or applies `fault` on memory sensor `index`; `daemon` is bluetoothd if it runs.
    static func inject(_ fault: MockMemoryFault, peripheral index: Int, world: PeripheralWorld, daemon: Bluetoothd?)
        async throws
    {
        let isMemorySensor = world.withState { $0.peripherals[index].memory != nil }
        guard isMemorySensor else {
            let address = world.withState { $0.peripherals[index].spec.address }
            throw MockError(
                name: "org.blectl.Mock.Error.NotAMemorySensor", message: "\(address) keeps no memory")
        }
        world.withState { apply(fault, to: &$0.peripherals[index]) }
        if fault == .reset, let daemon { await dropLinks(daemon, peripheral: index) }
    }

    private static func apply(_ fault: MockMemoryFault, to peripheral: inout PeripheralState) {
        switch fault {
        case .disconnectDuringDownload(let records): peripheral.memory?.faults.disconnectAfter = max(0, records)
        case .corruptRecord(let number): peripheral.memory?.faults.corruptRecord = max(1, number)
        case .refuseClockWrite(let times): peripheral.memory?.faults.refusedClockWrites += max(1, times)
        case .counterWrap:
            guard let state = peripheral.advertiser else { return }
            peripheral.advertiser = AdvertiserState(
                state.spec, centiCelsius: state.centiCelsius, centiHumidity: state.centiHumidity,
                battery: state.battery, counter: 255)
        case .reset:
            peripheral.memory?.reset()
            peripheral.advertiser = peripheral.spec.advertiser.map(AdvertiserState.init)
        }
    }

    /// A restarting sensor drops its links (the central sees a remote disconnect).
    private static func dropLinks(_ daemon: isolated Bluetoothd, peripheral index: Int) {
        for path in daemon.devices.keys.sorted() where daemon.devices[path]?.peripheral == index {
            daemon.tasks.cancel(MemorySensorGatt.taskKey(path))
            DeviceLinks.linkLost(daemon, path, dropNotifySessions: false)
        }
    }

    /// Disarms the faults armed on every memory sensor.
    static func clear(_ world: inout WorldState) {
        for index in world.peripherals.indices where world.peripherals[index].memory != nil {
            world.peripherals[index].memory?.faults = MemorySensorFaults()
        }
    }
}

/// What the control interface tells of a memory sensor (`SensorMemory`).
public struct MockSensorMemoryStatus: Sendable, Equatable {
    /// The sensor's clock now, seconds since 1970 as its 32-bit counter holds them.
    public var sensorTime: UInt32
    /// The time last written to its clock (0: never).
    public var lastSetTime: UInt32
    /// Records in its memory.
    public var records: Int
    /// The newest record's time, if any.
    public var newestRecordTime: UInt32?
    /// The oldest record's time, if any.
    public var oldestRecordTime: UInt32?
}

extension MockBluetoothd {
    /// The clock and memory of the memory sensor at `address`, brought up to date.
    public func sensorMemory(address: String) throws -> MockSensorMemoryStatus {
        let status = world.withState { world -> MockSensorMemoryStatus? in
            guard let index = world.index(of: address), var memory = world.peripherals[index].memory else {
                return nil
            }
            memory.catchUp()
            world.peripherals[index].memory = memory
            return MockSensorMemoryStatus(
                sensorTime: memory.time(), lastSetTime: memory.lastSetTime, records: memory.records.count,
                newestRecordTime: memory.records.last?.time, oldestRecordTime: memory.records.first?.time)
        }
        guard let status else { throw MockError.unknownDevice(address) }
        return status
    }
}
