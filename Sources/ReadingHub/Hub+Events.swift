import BlectlProtocol
public import SensorModel

extension Hub {
    /// Applies something that happened on the Bluetooth side and tells listeners.
    public func apply(_ event: SensorEvent) {
        let time = now()
        switch aliases.isEmpty ? event : aliased(event) {
        case .adapterState(let adapter, let state, let reason):
            guard adapter != adapterName || state != adapterState || reason != adapterReason else { return }
            adapterName = adapter
            adapterState = state
            adapterReason = reason
            noteAdapter(state, at: time)
            broadcast(.adapterState(AdapterChange(time: time, adapter: adapter, state: state, reason: reason)))
        case .peripheralSeen(let sighting):
            seen(sighting, at: time)
        case .peripheralLost(let address):
            guard let record = table.lose(address) else { return }
            broadcast(
                .peripheralLost(PeripheralChange(time: time, address: record.address, name: record.name)))
        case .connected(let address, let name):
            table.connect(address, name: name, at: time)
            let name = table[address]?.name
            broadcast(.connected(PeripheralChange(time: time, address: address, name: name)))
        case .disconnected(let address, let reason):
            guard let record = table.disconnect(address, at: time) else { return }
            let change = PeripheralChange(
                time: time, address: record.address, name: record.name, reason: reason)
            broadcast(.disconnected(change))
        case .leftOut(let address, let name, let reason):
            // Published as a `disconnected` event of a thermometer that was not connected
            // (docs/protocol.md): it stays without a link, and why.
            let change = PeripheralChange(
                time: time, address: address, name: name ?? table[address]?.name, reason: reason)
            broadcast(.disconnected(change))
        case .reading(let address, let name, let measurement):
            // One dictionary lookup per reading, and only when a calibration is configured.
            if !calibrations.isEmpty, let calibration = calibrations[address] {
                record(calibration.applied(to: measurement), address: address, name: name)
            } else {
                record(measurement, address: address, name: name)
            }
        case .readingError(let address, let name, let error):
            recordFailure(address: address, name: name, error: error, at: time)
        }
        // Waiting reads re-check their condition after every change.
        waiters.evaluate(.everything)
    }

    private func seen(_ sighting: Sighting, at time: Timestamp) {
        let address = sighting.address
        let announce = table.see(
            address: address, name: sighting.name, rssi: sighting.rssi, isThermometer: sighting.isThermometer,
            at: time, refresh: limits.sightingRefresh)
        guard announce, let record = table[address] else { return }
        let change = PeripheralSighting(
            time: time, address: address, name: record.name, rssi: record.rssi,
            thermometer: record.isThermometer)
        broadcast(.peripheralSeen(change))
    }

    /// Numbers a measurement with the next `seq`, keeps it as the device's newest, and
    /// broadcasts it.
    @discardableResult
    func record(_ measurement: Measurement, address: BluetoothAddress, name: String?) -> Reading {
        lastSeq += 1
        let labels = maker(of: measurement.profile, modelIndex: measurement.modelIndex)
        let reading = Reading(
            seq: lastSeq, time: now(), address: address, name: name ?? table[address]?.name,
            measurement: measurement, model: labels?.model, manufacturer: labels?.manufacturer)
        let previous = table.record(reading)
        broadcast(.reading(reading))
        if let previous { noteSilence(of: address, from: previous, until: reading.time) }
        return reading
    }

    private func recordFailure(address: BluetoothAddress, name: String?, error: ReadingError, at time: Timestamp) {
        lastSeq += 1
        table.heard(address, name: name, at: time)
        let record = table[address]
        // The error names no profile: the device's latest reading does, when there is one.
        let labels = record?.latestReading.flatMap {
            maker(of: $0.measurement.profile, modelIndex: $0.measurement.modelIndex)
        }
        let failure = ReadingFailure(
            seq: lastSeq, time: time, address: address, name: name ?? record?.name, error: "\(error)",
            rawHex: error.raw.hexString, model: labels?.model, manufacturer: labels?.manufacturer)
        table.failed(failure)
        broadcast(.readingError(failure))
    }

    /// The event with the device's configured alias as its name.
    private func aliased(_ event: SensorEvent) -> SensorEvent {
        switch event {
        case .peripheralSeen(var sighting):
            sighting.name = aliases[sighting.address] ?? sighting.name
            return .peripheralSeen(sighting)
        case .connected(let address, let name):
            return .connected(address, name: aliases[address] ?? name)
        case .reading(let address, let name, let measurement):
            return .reading(address, name: aliases[address] ?? name, measurement)
        case .readingError(let address, let name, let error):
            return .readingError(address, name: aliases[address] ?? name, error)
        case .leftOut(let address, let name, let reason):
            return .leftOut(address, name: aliases[address] ?? name, reason: reason)
        case .adapterState, .peripheralLost, .disconnected:
            return event
        }
    }

}
