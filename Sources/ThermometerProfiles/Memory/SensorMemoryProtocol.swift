public import SensorModel

/// A sensor's own memory and clock over GATT, in one family's words: what to write to ask for
/// records or set the clock, and how to read what the sensor notifies back.
///
/// A downloader drives any conformer the same way: subscribe to
/// ``notifyCharacteristic``, send the writes of ``requestWrites(for:)`` (or hand the
/// protocol to a ``SensorMemoryDownload``, which adds the bookkeeping), and feed every
/// notification to ``parse(_:)``. Conformers are pure: no I/O, no clock, no state.
/// Adding a protocol is one file with one conformer and one line in
/// ``SensorMemoryProtocols/all``.
public protocol SensorMemoryProtocol: Sendable {
    /// The advertising family whose sensors speak this protocol; its id is the profile
    /// memory records carry.
    var family: SensorFamily { get }
    /// Other advertising families whose sensors run the same firmware (the pvvx firmware
    /// also sends encrypted beacons).
    var alsoAdvertisedAs: [ProfileID] { get }
    /// The GATT service holding the characteristics.
    var service: BluetoothUUID { get }
    /// The characteristic whose notifications carry records, the end marker and the clock;
    /// for a protocol that notifies nothing (a clock alone), the one its writes go to.
    var notifyCharacteristic: BluetoothUUID { get }
    /// The order records arrive in.
    var recordOrder: MemoryRecordOrder { get }

    /// The writes that ask for the records of `request`; empty when there is nothing to ask.
    func requestWrites(for request: MemoryRequest) -> [MemoryWrite]
    /// The writes that stop a download before the sensor's end marker; empty when the
    /// protocol cannot stop one (then the central disconnects).
    var stopWrites: [MemoryWrite] { get }
    /// The writes that ask the sensor for its clock (answered by a ``MemoryNotification/clock(_:)``).
    var readClockWrites: [MemoryWrite] { get }
    /// The writes that set the sensor's clock to `unixTime` (seconds since 1970, UTC).
    func setClockWrites(to unixTime: UInt32) -> [MemoryWrite]
    /// The writes that set the clock of a sensor that keeps local time (a display clock) to
    /// `unixTime`, the gateway being `utcOffset` seconds ahead of UTC; the default ignores
    /// the offset (a clock in UTC).
    func setClockWrites(to unixTime: UInt32, utcOffset: Int) -> [MemoryWrite]

    /// Reads one notification of ``notifyCharacteristic``.
    ///
    /// - Throws: ``SensorMemoryError`` for a value the protocol cannot hold: too short,
    ///   an erased or impossible time, an implausible temperature.
    func parse(_ value: [UInt8]) throws(SensorMemoryError) -> MemoryNotification

    // Protocols that number their records on the sensor and keep the clock in a
    // characteristic of its own (Xiaomi's stock firmware) need reads besides writes and
    // notifications; the defaults below are those of a protocol that needs none (pvvx).

    /// A characteristic whose *read* value is the clock (see ``parseClockRead(_:)``), written
    /// by ``setClockWrites(to:)``; nil where the clock answers ``readClockWrites`` by a notification.
    var clockCharacteristic: BluetoothUUID? { get }
    /// Reads a value of ``clockCharacteristic``.
    func parseClockRead(_ value: [UInt8]) throws(SensorMemoryError) -> SensorClockReading
    /// Characteristics read just before a request; ``plan(for:reads:)`` gets their values.
    var requestReads: [BluetoothUUID] { get }
    /// Whether to subscribe to ``notifyCharacteristic`` only after the request's writes
    /// (a sensor that starts sending at the subscription, from where the writes point).
    var subscribesAfterRequest: Bool { get }
    /// The models of the family that speak it, as their readings name them (``Measurement/modelIndex``);
    /// nil: every model.
    var models: Set<String>? { get }
    /// Whether a sensor heard live as `measurement` runs this protocol's firmware: false for
    /// models of the family that keep no memory (or, for a clock alone, no clock).
    func keepsMemory(_ measurement: Measurement) -> Bool
    /// Whether the sensor keeps records to read; false for a clock alone (ThermoPro's
    /// TP358), which is only ever visited for its clock.
    var readsRecords: Bool { get }
    /// The writes for `request`, given the values of ``requestReads`` (by UUID), and how the
    /// sensor numbers the records it will send.
    func plan(for request: MemoryRequest, reads: [BluetoothUUID: [UInt8]]) -> MemoryPlan
    /// Where the sensor numbers its records upward, the number its next record will carry,
    /// from the values of ``requestReads``; nil otherwise.
    func nextRecordNumber(reads: [BluetoothUUID: [UInt8]]) -> UInt32?
}

extension SensorMemoryProtocol {
    /// None: the clock is a command's answer.
    public var clockCharacteristic: BluetoothUUID? { nil }
    /// Reads the value as a notification and takes its clock.
    public func parseClockRead(_ value: [UInt8]) throws(SensorMemoryError) -> SensorClockReading {
        guard case .clock(let reading) = try parse(value) else {
            throw SensorMemoryError(.truncated, raw: value, detail: "not a clock answer")
        }
        return reading
    }
    /// None.
    public var requestReads: [BluetoothUUID] { [] }
    /// Subscribe first.
    public var subscribesAfterRequest: Bool { false }
    /// Every model.
    public var models: Set<String>? { nil }
    /// Every sensor of the family, or of ``models`` as the reading names its model.
    public func keepsMemory(_ measurement: Measurement) -> Bool {
        guard let models else { return true }
        return model(of: measurement).map(models.contains) ?? false
    }
    /// The model a reading of the family names, if its decoder told it apart.
    public func model(of measurement: Measurement) -> String? {
        guard measurement.profile == family.id, let index = measurement.modelIndex.map(Int.init),
            index < family.models.count
        else { return nil }
        return family.models[index]
    }
    /// Records.
    public var readsRecords: Bool { true }
    /// Unknown: records are not numbered upward.
    public func nextRecordNumber(reads: [BluetoothUUID: [UInt8]]) -> UInt32? { nil }
    /// A clock in UTC: ``setClockWrites(to:)``.
    public func setClockWrites(to unixTime: UInt32, utcOffset: Int) -> [MemoryWrite] { setClockWrites(to: unixTime) }
    /// Whether the clock can be read back, by a read or a command's answer; a clock that
    /// cannot be read is set by a write alone, whose response is the only confirmation.
    public var clockCanBeRead: Bool { clockCharacteristic != nil || !readClockWrites.isEmpty }
    /// Whether the sensor notifies anything: records, or the clock's answers.
    public var notifies: Bool { readsRecords || !readClockWrites.isEmpty }
    /// ``requestWrites(for:)``; numbers as the records carry them, and an end marker.
    public func plan(for request: MemoryRequest, reads: [BluetoothUUID: [UInt8]]) -> MemoryPlan {
        MemoryPlan(writes: requestWrites(for: request))
    }
}

/// What a download asks, and how the sensor will number what it sends.
public struct MemoryPlan: Sendable, Equatable {
    /// The writes that start it; empty when there is nothing to ask.
    public var writes: [MemoryWrite]
    /// The sensor's number of the record that counts as number 1 (records carrying their
    /// index on the sensor); nil when records come numbered from 1 already.
    public var firstNumber: UInt32?
    /// The number (counted from 1) of the last record the sensor will send, for a protocol
    /// without an end marker; nil when the sensor ends the download itself.
    public var lastNumber: UInt32?

    /// A plan.
    public init(writes: [MemoryWrite], firstNumber: UInt32? = nil, lastNumber: UInt32? = nil) {
        self.writes = writes
        self.firstNumber = firstNumber
        self.lastNumber = lastNumber
    }
}

/// One GATT write of a sensor-memory protocol.
public struct MemoryWrite: Sendable, Equatable {
    /// The characteristic to write.
    public var characteristic: BluetoothUUID
    /// The bytes.
    public var value: [UInt8]
    /// Whether to write with a response (`type` `request`); else a command (`type` `command`).
    public var withResponse: Bool

    /// A write.
    public init(characteristic: BluetoothUUID, value: [UInt8], withResponse: Bool) {
        self.characteristic = characteristic
        self.value = value
        self.withResponse = withResponse
    }
}

/// Which records a central asks for.
public enum MemoryRequest: Sendable, Equatable {
    /// The newest `count` records, passing over the first `skipping` the sensor would send
    /// (those an interrupted download already stored).
    case newest(count: Int, skipping: Int = 0)
    /// Every record stamped after `deviceTime` by the sensor's own clock (translate the
    /// gateway's time with the drift first), passing over the first `skipping`.
    case newer(than: UInt32, skipping: Int = 0)

    /// How many records the request may bring at most (nil: as many as the sensor holds).
    public var limit: Int? {
        if case .newest(let count, _) = self { return max(0, count) }
        return nil
    }

    /// The records to pass over.
    public var skipping: Int {
        switch self {
        case .newest(_, let skipping), .newer(_, let skipping): max(0, skipping)
        }
    }

    /// The time records must be newer than, if the request has one.
    public var newerThan: UInt32? {
        if case .newer(let time, _) = self { return time }
        return nil
    }
}

/// The order a protocol sends records in.
public enum MemoryRecordOrder: Sendable, Equatable {
    /// The newest first, then older ones (pvvx): a download can stop at the first record it
    /// already has.
    case newestFirst
    /// The oldest first.
    case oldestFirst
}

/// What one notification of a sensor-memory protocol says.
public enum MemoryNotification: Sendable, Equatable {
    /// A stored measurement.
    case record(SensorMemoryRecord)
    /// The sensor has sent every record it will for this request.
    case end
    /// The sensor's clock, answering a read or a set.
    case clock(SensorClockReading)
    /// The sensor refused `command` (the protocol's own error reply).
    case refused(command: UInt8)
    /// A notification of another command on the same characteristic: not for a downloader.
    case unrelated
}

/// A sensor's clock as it reported it.
public struct SensorClockReading: Sendable, Equatable {
    /// The sensor's time, seconds since 1970 as its clock counts them.
    public var deviceTime: UInt32
    /// The time last written to the clock, if the sensor reports it (pvvx with its time
    /// adjustment service).
    public var lastSetTime: UInt32?

    /// A clock reading.
    public init(deviceTime: UInt32, lastSetTime: UInt32? = nil) {
        self.deviceTime = deviceTime
        self.lastSetTime = lastSetTime
    }

    /// The sensor's time minus `gatewayTime` (both seconds since 1970): the drift to record
    /// and to subtract from memory timestamps read before the clock is set.
    public func drift(from gatewayTime: Int64) -> Int64 { Int64(deviceTime) - gatewayTime }
}
