public import BlectlProtocol
public import SensorModel

extension Hub {
    /// What became of a record read from a sensor's memory.
    public enum MemoryRecordFate: Sendable, Equatable {
        /// Numbered, kept and broadcast as a reading with source `memory`.
        case stored(seq: UInt64)
        /// Its minute already has a reading of the device (live or memory): dropped.
        case duplicate
        /// No history to check it against: dropped.
        case noHistory
    }

    /// Stores a measurement read back from `address`'s memory, taken at `time` (the gateway's
    /// clock, drift corrected), unless the device already has a reading in that minute.
    ///
    /// The rule: one reading per device per minute at most comes from memory; a record
    /// whose minute (`time` rounded down to the minute) holds any reading of the device,
    /// live or from memory, is dropped. A stored record gets the next `seq` (so clients
    /// resuming by `seq` receive it), goes to every output as a `reading` event with
    /// source `memory`, and never becomes the device's latest reading.
    public func recordFromMemory(
        _ measurement: Measurement, at time: Timestamp, address: BluetoothAddress, name: String?
    ) async -> MemoryRecordFate {
        guard let historySource else { return .noHistory }
        let minute = time.millisecondsSince1970 - ((time.millisecondsSince1970 % 60_000) + 60_000) % 60_000
        let query = HistoryQuery(
            address: address, from: Timestamp(millisecondsSince1970: minute),
            until: Timestamp(millisecondsSince1970: minute + 60_000), limit: 1)
        let page = await historySource.history(query, limit: 1)
        if page.events.contains(where: { if case .reading = $0 { true } else { false } }) { return .duplicate }
        var calibrated = measurement
        if let calibration = calibrations[address] { calibrated = calibration.applied(to: measurement) }
        lastSeq += 1
        let labels = maker(of: calibrated.profile)
        let reading = Reading(
            seq: lastSeq, time: time, address: address,
            name: aliases[address] ?? name ?? table[address]?.name, measurement: calibrated,
            model: labels?.model, manufacturer: labels?.manufacturer, source: .memory)
        broadcast(.reading(reading))
        return .stored(seq: lastSeq)
    }

    /// The time of the device's newest stored reading (live or memory) in `range`, found
    /// with a few one-row history queries (a binary search to the minute); nil when it has
    /// none there or the daemon keeps no history.
    public func newestStoredReading(of address: BluetoothAddress, in range: Range<Timestamp>) async -> Timestamp? {
        guard let historySource else { return nil }
        var (low, high) = (range.lowerBound.millisecondsSince1970, range.upperBound.millisecondsSince1970)
        guard let first = await firstReading(address, low, high, historySource) else { return nil }
        var newest = first
        // Invariant: a reading at `newest`, none in [high, range end) beyond what was found.
        low = newest.millisecondsSince1970 + 1
        while high - low > 60_000 {
            let middle = low + (high - low) / 2
            if let found = await firstReading(address, middle, high, historySource) {
                newest = found
                low = found.millisecondsSince1970 + 1
            } else {
                high = middle
            }
        }
        if let last = await lastReadingIn(address, low, high, historySource) { newest = last }
        return newest
    }

    /// The oldest reading of `address` in [from, until).
    private func firstReading(_ address: BluetoothAddress, _ from: Int64, _ until: Int64, _ source: any HistorySource)
        async -> Timestamp?
    {
        guard from < until else { return nil }
        let query = HistoryQuery(
            address: address, from: Timestamp(millisecondsSince1970: from),
            until: Timestamp(millisecondsSince1970: until), limit: 1)
        return await source.history(query, limit: 1).events.first { if case .reading = $0 { true } else { false } }?
            .time
    }

    /// The newest reading of `address` in a window of a minute or less.
    private func lastReadingIn(_ address: BluetoothAddress, _ from: Int64, _ until: Int64, _ source: any HistorySource)
        async -> Timestamp?
    {
        guard from < until else { return nil }
        let query = HistoryQuery(
            address: address, from: Timestamp(millisecondsSince1970: from),
            until: Timestamp(millisecondsSince1970: until), limit: 1000)
        return await source.history(query, limit: 1000).events.last { if case .reading = $0 { true } else { false } }?
            .time
    }
}
