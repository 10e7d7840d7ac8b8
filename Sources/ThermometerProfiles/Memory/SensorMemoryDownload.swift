/// One download from a sensor's memory, as a value: the writes that start it, and what each
/// notification means for it. The downloader does the I/O; this does the bookkeeping every
/// protocol shares.
///
/// It refuses what a request cannot bring: records beyond its count, a number already
/// received, a time later than the sensor's own clock. A newest-first download by time ends
/// itself (with the protocol's stop writes) at the first record not newer than asked.
public struct SensorMemoryDownload: Sendable {
    /// How a download ended.
    public enum End: Sendable, Equatable {
        /// The sensor said it had sent everything (its end marker).
        case sensorEnded
        /// The request's count was reached.
        case limitReached
        /// A record not newer than the request's time arrived: the rest is older.
        case reachedOlderRecords
    }

    /// What one notification did to the download.
    public enum Step: Sendable, Equatable {
        /// A record to store.
        case record(SensorMemoryRecord)
        /// A notification refused; the download goes on (a corrupt record among good ones).
        case rejected(SensorMemoryError)
        /// The download is over; send `stopWrites` (empty when the sensor ended it itself).
        case finished(End, stopWrites: [MemoryWrite])
        /// Nothing for the download (another command's answer, a record older than asked
        /// from a sensor sending oldest first, or after the end).
        case ignored
    }

    /// How far a record's time may run ahead of the sensor's clock reading before it is
    /// impossible: the reading and the download are seconds apart.
    public static let clockSlack: UInt32 = 120

    /// The protocol spoken.
    public let memoryProtocol: any SensorMemoryProtocol
    /// What was asked.
    public let request: MemoryRequest
    /// The sensor's clock read just before, if it was: later records are impossible.
    public let sensorTime: UInt32?
    /// The writes and the numbering, from the protocol's ``SensorMemoryProtocol/plan(for:reads:)``.
    public let plan: MemoryPlan
    /// The records accepted so far.
    public private(set) var received = 0
    /// How it ended; nil while it runs.
    public private(set) var end: End?
    private var numbers: Set<UInt32> = []

    /// A download of `request` from a sensor speaking `memoryProtocol`; `reads` holds the
    /// values of its ``SensorMemoryProtocol/requestReads`` by UUID.
    public init(
        _ memoryProtocol: any SensorMemoryProtocol, request: MemoryRequest, sensorTime: UInt32? = nil,
        reads: [BluetoothUUID: [UInt8]] = [:]
    ) {
        self.memoryProtocol = memoryProtocol
        self.request = request
        self.sensorTime = sensorTime
        plan = memoryProtocol.plan(for: request, reads: reads)
        if startWrites.isEmpty { end = .limitReached }
    }

    /// The writes that start it; empty when there is nothing to ask.
    public var startWrites: [MemoryWrite] { plan.writes }

    /// Whether it is over.
    public var isFinished: Bool { end != nil }

    /// Takes one notification of the protocol's characteristic.
    public mutating func receive(_ value: [UInt8]) -> Step {
        guard end == nil else { return .ignored }
        let notification: MemoryNotification
        do {
            notification = try memoryProtocol.parse(value)
        } catch {
            return .rejected(error)
        }
        switch notification {
        case .record(let record):
            let step = accept(record, raw: value)
            // A sensor without an end marker is done with the last record it was asked for.
            if end == nil, let last = plan.lastNumber, let number = renumbered(record.number), number >= last {
                end = .sensorEnded
            }
            return step
        case .end: return finish(.sensorEnded, stopping: false)
        case .clock, .refused, .unrelated: return .ignored
        }
    }

    /// `number` counted from the plan's first number (1 for it); nil for one before it.
    private func renumbered(_ number: UInt32) -> UInt32? {
        guard let first = plan.firstNumber else { return number }
        return number >= first ? number - first + 1 : nil
    }

    private mutating func accept(_ sent: SensorMemoryRecord, raw: [UInt8]) -> Step {
        var record = sent
        guard let number = renumbered(sent.number) else {
            return .rejected(
                SensorMemoryError(.unexpectedRecord, raw: raw, detail: "record \(sent.number), before those asked for"))
        }
        record.number = number
        if let limit = request.limit, received >= limit {
            return finish(.limitReached, stopping: true)
        }
        guard numbers.insert(record.number).inserted else {
            return .rejected(SensorMemoryError(.unexpectedRecord, raw: raw, detail: "record \(record.number) again"))
        }
        if let sensorTime, UInt64(record.deviceTime) > UInt64(sensorTime) + UInt64(Self.clockSlack) {
            return .rejected(
                SensorMemoryError(
                    .impossibleTime, raw: raw,
                    detail: "stamped \(record.deviceTime), after the sensor's clock (\(sensorTime))"))
        }
        if let since = request.newerThan, record.deviceTime <= since {
            // Newest first, the rest is older still; oldest first, newer ones follow.
            if memoryProtocol.recordOrder == .newestFirst { return finish(.reachedOlderRecords, stopping: true) }
            return .ignored
        }
        received += 1
        return .record(record)
    }

    private mutating func finish(_ reason: End, stopping: Bool) -> Step {
        end = reason
        return .finished(reason, stopWrites: stopping ? memoryProtocol.stopWrites : [])
    }
}
