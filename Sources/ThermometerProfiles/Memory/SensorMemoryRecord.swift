public import SensorModel

/// One measurement from a sensor's memory, stamped by the sensor's own clock.
public struct SensorMemoryRecord: Sendable, Equatable {
    /// The sensor's number of the record in its answer (pvvx: 1 is the newest when the
    /// request arrived, counting the records skipped).
    public var number: UInt32
    /// When the sensor stored it: seconds since 1970 by its clock, which may be off (see
    /// ``SensorClockReading/drift(from:)``).
    public var deviceTime: UInt32
    /// The values, checked and rounded as live readings of the family are.
    public var measurement: Measurement
    /// Why a secondary quantity out of its range was left out (the temperature stands).
    public var dropped: [ReadingError]

    /// A record.
    public init(number: UInt32, deviceTime: UInt32, measurement: Measurement, dropped: [ReadingError] = []) {
        self.number = number
        self.deviceTime = deviceTime
        self.measurement = measurement
        self.dropped = dropped
    }
}

/// Why a sensor-memory notification or record was refused.
public struct SensorMemoryError: Error, Sendable, Equatable {
    /// What was wrong.
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        /// Shorter than the protocol's message of that kind.
        case truncated
        /// Longer than any message of the protocol.
        case oversized
        /// A record read from erased flash (every byte of its time 0xFF).
        case erasedRecord = "erased-record"
        /// A time no clock could have stamped: the firmware's invalid-clock marker, or later
        /// than the sensor's own clock.
        case impossibleTime = "impossible-time"
        /// A temperature outside the plausible range.
        case impossibleValue = "impossible-value"
        /// A record the request did not ask for: beyond its count, or a number already received.
        case unexpectedRecord = "unexpected-record"
    }

    /// What was wrong.
    public var kind: Kind
    /// The notification as received.
    public var raw: [UInt8]
    /// A human explanation.
    public var detail: String

    /// An error.
    public init(_ kind: Kind, raw: [UInt8], detail: String) {
        self.kind = kind
        self.raw = raw
        self.detail = detail
    }
}

extension SensorMemoryError {
    /// Throws ``Kind/truncated`` for a value shorter than `length`, ``Kind/oversized`` for a
    /// longer one; `what` names the message (`"a record"`).
    static func requireLength(_ value: [UInt8], _ length: Int, of what: String) throws(SensorMemoryError) {
        guard value.count != length else { return }
        throw SensorMemoryError(
            value.count < length ? .truncated : .oversized, raw: value,
            detail: "\(value.count) bytes, \(what) has \(length)")
    }
}
