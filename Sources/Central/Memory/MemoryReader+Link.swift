import BlueZClient
import SensorModel
import ThermometerProfiles
import ConcurrencySupport

/// The reader's way onto the link: a connect slot, the connection, the characteristic.
extension MemoryReader {
    /// How often a download waiting for a slot asks again.
    static let slotRetry: Duration = .seconds(2)

    /// Takes a connect slot when one is free at once, asking again every ``slotRetry`` up
    /// to the request's `slotTimeout`; returns the peripheral on the adapter granted (the
    /// slots are per adapter: another than `peripheral`'s when its own are full), nil when
    /// none came.
    ///
    /// It never waits in the thermometers' queue: a download is not a thermometer, is never
    /// reported left out, and takes a slot only when the slots' own order (thermometers known
    /// to work first, each keeping a link reserved) would grant it now.
    func takeSlot(_ peripheral: Peripheral, _ monitor: isolated ThermometerMonitor) async -> Peripheral? {
        let deadline = ContinuousClock.now + request.slotTimeout
        while !Task.isCancelled {
            let adapters = await monitor.central.connectAdapters(for: peripheral)
            if monitor.connectQueue.request(address, on: adapters) {
                let granted = monitor.connectQueue.slots.adapter(of: address).flatMap { $0.device(address) }
                return granted.map { Peripheral(address: address, path: $0, name: nil) } ?? peripheral
            }
            monitor.connectQueue.release(address)
            guard ContinuousClock.now + Self.slotRetry < deadline else { return nil }
            try? await monitor.central.executor.sleep(for: Self.slotRetry)
        }
        return nil
    }

    /// Connects with the monitor's scan paused, as a thermometer's connect is.
    func connect(_ peripheral: Peripheral, _ monitor: isolated ThermometerMonitor) async throws {
        await monitor.beginConnect()
        defer { monitor.endConnect() }
        monitor.log.debug("sensor \(address): connecting to read its memory")
        try await monitor.central.connect(peripheral, timeout: monitor.configuration.connectTimeout)
        monitor.connectQueue.established(address)
    }

    /// The protocol's notify characteristic, found by UUID (waiting for BlueZ to export it),
    /// and every characteristic of its service by UUID.
    func findCharacteristic(_ peripheral: Peripheral, _ monitor: isolated ThermometerMonitor) async throws
        -> (Characteristic, [BluetoothUUID: Characteristic])
    {
        let (service, characteristic) = (memory.service, memory.notifyCharacteristic)
        let epoch = await monitor.central.disconnectCount(peripheral.path)
        let found = await monitor.central.wait(timeout: monitor.configuration.serviceTimeout, device: peripheral.path) {
            central -> Result<(Characteristic, [BluetoothUUID: Characteristic]), CentralError>? in
            guard central.hasDevice(peripheral.path) else { return .failure(.peripheralGone) }
            if central.disconnects[peripheral.path, default: 0] != epoch { return .failure(.disconnected) }
            for found in central.currentServices([service], of: peripheral) {
                let all = central.currentCharacteristics([], of: found)
                if let first = all.first(where: { $0.uuid == characteristic }) {
                    let byUUID = all.reduce(into: [BluetoothUUID: Characteristic]()) { map, each in
                        if let uuid = each.uuid { map[uuid] = map[uuid] ?? each }
                    }
                    return .success((first, byUUID))
                }
            }
            return nil
        }
        guard let found else { throw CentralError.notFound("memory service \(service) on \(peripheral.address)") }
        return try found.get()
    }
}

/// A subscribed memory characteristic: writes, and the answers that come back.
struct MemoryLink {
    let central: CentralManager
    let characteristic: Characteristic
    /// The service's characteristics by UUID, for protocols that write or read others.
    var characteristics: [BluetoothUUID: Characteristic] = [:]
    let inbox: MemoryInbox
    let memory: any SensorMemoryProtocol
    /// How long a clock answer may take.
    static let answerTimeout: Duration = .seconds(5)

    /// Sends `writes` in order, each to its characteristic; false when one failed.
    func write(_ writes: [MemoryWrite]) async -> Bool {
        for write in writes {
            do {
                try await send(write)
            } catch {
                return false
            }
        }
        return true
    }

    private func send(_ write: MemoryWrite) async throws(CentralError) {
        let target = characteristics[write.characteristic] ?? characteristic
        try await central.writeValue(write.value, for: target, withResponse: write.withResponse)
    }

    /// The value of the service's characteristic `uuid`; nil when it has none or the read failed.
    func read(_ uuid: BluetoothUUID) async -> [UInt8]? {
        guard let target = characteristics[uuid] else { return nil }
        return try? await central.readValue(for: target)
    }

    /// The sensor's clock, or nil when it did not answer.
    mutating func readClock() async -> SensorClockReading? {
        guard memory.clockCanBeRead else { return nil }
        if let clock = memory.clockCharacteristic {
            return await read(clock).flatMap { try? memory.parseClockRead($0) }
        }
        inbox.drain()  // a value cached from an earlier connection is no answer
        guard await write(memory.readClockWrites) else { return nil }
        return await clockAnswer { _ in true }
    }

    /// Sets the clock to `time` and checks the answer; a clock that cannot be read is set
    /// when the write's response says so.
    mutating func setClock(to time: Int64) async -> ClockSetOutcome {
        let writes = memory.setClockWrites(
            to: UInt32(clamping: max(0, time)), utcOffset: MemoryReader.utcOffset(at: time))
        for write in writes {
            do {
                try await send(write)
            } catch {
                return .refused("\(error)")
            }
        }
        guard memory.clockCanBeRead else { return .set }
        if memory.clockCharacteristic != nil {
            // A clock of its own is read back: it must tell the time set, within the slack.
            guard let now = await readClock(), abs(Int64(now.deviceTime) - time) <= 5 else {
                return .refused("the clock read back does not tell the time set")
            }
            return .set
        }
        // The answer to the write tells the time just set; an earlier answer is passed over.
        // Where the sensor tells the time last set (pvvx), that must be this write's.
        let written = UInt32(clamping: max(0, time))
        let accepted: (SensorClockReading) -> Bool = { answer in
            if let lastSet = answer.lastSetTime { return lastSet == written }
            return abs(Int64(answer.deviceTime) - time) <= 5
        }
        guard await clockAnswer(accepted) != nil else {
            return .refused("no answer telling the time set")
        }
        return .set
    }

    /// Waits for the next clock answer, passing over other notifications.
    private func clockAnswer(_ accepted: (SensorClockReading) -> Bool) async -> SensorClockReading? {
        let deadline = ContinuousClock.now + Self.answerTimeout
        while ContinuousClock.now < deadline {
            guard case .value(let bytes)? = await inbox.next(timeout: deadline - .now) else { return nil }
            switch try? memory.parse(bytes) {
            case .clock(let reading)? where accepted(reading): return reading
            case .refused?: return nil
            default: continue
            }
        }
        return nil
    }
}
