import BlectlProtocol

/// One stored reading or reading error, without its device's address.
///
/// History holds a thousand of these per device, so they are kept small: 64 bytes, and
/// no heap allocation of their own when `raw` and `name` fit a Swift small string (up
/// to 15 UTF-8 bytes, e.g. `"112.5 F"`). The address lives once, in the device's entry;
/// ``event(address:)`` rebuilds the protocol value when history is asked for.
struct HistoryEntry {
    /// What arrived: a temperature, or (rarely) a value that could not be decoded.
    enum Value {
        /// A temperature with the device's text for it.
        case reading(celsius: Double, raw: String, unit: TemperatureUnit)
        /// Boxed: its two strings inline would make every entry 72 bytes instead of 64.
        indirect case failure(error: String, rawHex: String)
    }

    var seq: UInt64
    var time: Timestamp
    var name: String?
    var value: Value

    /// The entry for a reading or reading error; nil for other events.
    init?(_ event: Event) {
        switch event {
        case .reading(let reading):
            self.init(reading)
        case .readingError(let failure):
            self.init(
                seq: failure.seq, time: failure.time, name: failure.name,
                value: .failure(error: failure.error, rawHex: failure.rawHex))
        default:
            return nil
        }
    }

    /// The entry for `reading`.
    init(_ reading: Reading) {
        self.init(
            seq: reading.seq, time: reading.time, name: reading.name,
            value: .reading(celsius: reading.celsius, raw: reading.raw, unit: reading.unit))
    }

    init(seq: UInt64, time: Timestamp, name: String?, value: Value) {
        self.seq = seq
        self.time = time
        self.name = name
        self.value = value
    }

    /// The reading this entry stored, or nil for a reading error.
    func reading(address: String) -> Reading? {
        guard case .reading(let celsius, let raw, let unit) = value else { return nil }
        return Reading(seq: seq, time: time, address: address, name: name, celsius: celsius, raw: raw, unit: unit)
    }

    /// The event this entry stored, as it was recorded.
    func event(address: String) -> Event {
        if let reading = reading(address: address) { return .reading(reading) }
        guard case .failure(let error, let rawHex) = value else { preconditionFailure("not a reading") }
        return .readingError(
            ReadingFailure(seq: seq, time: time, address: address, name: name, error: error, rawHex: rawHex))
    }
}
