import BlectlProtocol

extension Hub {
    /// Applies something that happened on the Bluetooth side and tells listeners.
    public func apply(_ event: DaemonEvent) {
        let time = now()
        switch event {
        case .adapterState(let adapter, let state):
            guard adapter != adapterName || state != adapterState else { return }
            adapterName = adapter
            adapterState = state
            broadcast(.adapterState(AdapterChange(time: time, adapter: adapter, state: state)))
        case .peripheralSeen(let address, let name, let rssi, let isThermometer):
            seen(Self.normalized(address), name: name, rssi: rssi, isThermometer: isThermometer, at: time)
        case .peripheralLost(let address):
            guard let record = table.lose(Self.normalized(address)) else { return }
            broadcast(
                .peripheralLost(PeripheralChange(time: time, address: record.address, name: record.name)))
        case .connected(let address, let name):
            let address = Self.normalized(address)
            table.connect(address, name: name, at: time)
            let name = table[address]?.name
            broadcast(.connected(PeripheralChange(time: time, address: address, name: name)))
        case .disconnected(let address, let reason):
            guard let record = table.disconnect(Self.normalized(address), at: time) else { return }
            let change = PeripheralChange(
                time: time, address: record.address, name: record.name, reason: reason)
            broadcast(.disconnected(change))
        case .reading(let address, let name, let sample):
            record(sample, address: Self.normalized(address), name: name)
        case .readingError(let address, let message, let raw):
            recordFailure(address: Self.normalized(address), message: message, raw: raw, at: time)
        }
        // Waiting reads re-check their condition after every change.
        waiters.wakeAll()
    }

    private func seen(_ address: String, name: String?, rssi: Int?, isThermometer: Bool, at time: Timestamp) {
        let announce = table.see(
            address: address, name: name, rssi: rssi, isThermometer: isThermometer, at: time,
            refresh: limits.sightingRefresh)
        guard announce, let record = table[address] else { return }
        let sighting = PeripheralSighting(
            time: time, address: address, name: record.name, rssi: record.rssi,
            thermometer: record.isThermometer)
        broadcast(.peripheralSeen(sighting))
    }

    /// Stores a temperature with the next `seq` and broadcasts it.
    @discardableResult
    func record(_ sample: TemperatureSample, address: String, name: String?) -> Reading {
        let time = now()
        lastSeq += 1
        table.heard(address, name: name, at: time)
        let reading = Reading(
            seq: lastSeq, time: time, address: address,
            name: name ?? table[address]?.name ?? store.name(of: address),
            celsius: (sample.celsius * 100).rounded() / 100, raw: sample.raw, unit: sample.unit)
        store.record(.reading(reading))
        broadcast(.reading(reading))
        return reading
    }

    private func recordFailure(address: String, message: String, raw: [UInt8], at time: Timestamp) {
        lastSeq += 1
        table.heard(address, name: nil, at: time)
        let failure = ReadingFailure(
            seq: lastSeq, time: time, address: address,
            name: table[address]?.name ?? store.name(of: address), error: message, rawHex: Self.hex(raw))
        store.record(.readingError(failure))
        broadcast(.readingError(failure))
    }

    static func normalized(_ address: String) -> String {
        // Addresses from the Bluetooth side are upper case already: keep the string, no copy.
        address.utf8.contains { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) } ? address.uppercased() : address
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0f)]] })
    }
}
