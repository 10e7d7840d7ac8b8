/// What an adapter hears of one advertisement: its range, the signal walk, the sensor
/// moving on, and losses.
extension WorldState {
    /// One advertising report of peripheral `index` on the adapter at `adapter` (an address),
    /// the adapter's report number `report` of it: the peripheral's state and the RSSI heard,
    /// or nil when the adapter does not hear it.
    ///
    /// An advertising sensor moves on once per advertisement, however many adapters hear
    /// it: a report less than half an advertising interval after the one that moved it on is
    /// the same advertisement, heard by another adapter (with one adapter, every report is
    /// at least 0.95 intervals after the last).
    mutating func hear(
        _ index: Int, adapter: String, report: Int, defaultInterval: Duration, now: ContinuousClock.Instant = .now
    ) -> (state: PeripheralState, rssi: Int16)? {
        let spec = peripherals[index].spec
        // Out of this adapter's range: it never hears the peripheral (others may).
        guard
            let typical = ranges.signal(adapter: adapter, peripheral: spec.address)
                .typicalRSSI(base: spec.rssi, report: report)
        else { return nil }
        guard FaultPlan.take(&faults.outOfRange, address: spec.address) == nil else { return nil }
        let step = Int16(jitter(-3...3))
        // Signal strength wanders within ±6 dBm of the peripheral's typical value.
        peripherals[index].rssi = min(max(peripherals[index].rssi + step, spec.rssi - 6), spec.rssi + 6)
        let rssi = MockSignal.clamped(Int(typical) + Int(peripherals[index].rssi - spec.rssi))
        let interval = spec.advertisingInterval ?? defaultInterval
        if peripherals[index].advertisedAt.map({ now - $0 >= interval / 2 }) ?? true {
            peripherals[index].advertisedAt = now
            peripherals[index].advertiser?.advance(using: &random)
        }
        // The sensor advertised (its counter moved on), but this adapter did not hear it.
        if let loss = spec.advertiser?.loss, loss > 0, Double.random(in: 0..<1, using: &lossRandom[index]) < loss {
            return nil
        }
        return (peripherals[index], rssi)
    }
}
