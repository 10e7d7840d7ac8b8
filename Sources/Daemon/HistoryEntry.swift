import BlectlProtocol
import SensorModel

/// One stored reading or reading error, without its device's address and name.
///
/// History holds a thousand of these per device, so they take 32 bytes and no heap of
/// their own for an everyday reading: a temperature alone, from the device's usual profile,
/// its text in up to 7 UTF-8 bytes (`"44.7 C"`, `"112.5 F"`, the hex of a 3-byte value) and
/// the temperature in hundredths of a degree, as the profiles round it. Anything else
/// (other quantities, a longer text, a reading error) is boxed. The address is kept once
/// per device, and the name as an index into the device's ``HistoryNames``.
struct HistoryEntry {
    var seq: UInt64
    var milliseconds: Int64
    /// The temperature × 100, when `payload` is `.text`.
    var centidegrees: Int32
    var unit: TemperatureUnit
    /// The entry's name in the device's ``HistoryNames``; 0 for none (or one in the box).
    var name: UInt8
    var payload: Payload

    enum Payload {
        /// A reading whose text and temperature fit the entry.
        case text(ShortText)
        /// Any other reading, or a reading error.
        case boxed(Boxed)
    }

    /// What does not fit an entry.
    final class Boxed {
        /// The reading's measurement; nil for a reading error.
        let measurement: Measurement?
        /// For a reading error: what was wrong, and the value's hex.
        let error: (message: String, rawHex: String)?
        /// A name that did not fit the device's ``HistoryNames``.
        let name: String?

        init(measurement: Measurement?, error: (message: String, rawHex: String)?, name: String?) {
            (self.measurement, self.error, self.name) = (measurement, error, name)
        }
    }

    /// The entry for a reading or reading error (nil for other events); its name is
    /// looked up in, or added to, `names`.
    init?(_ event: Event, names: inout HistoryNames) {
        switch event {
        case .reading(let reading):
            self.init(reading, names: &names)
        case .readingError(let failure):
            let index = names.index(of: failure.name)
            let boxed = Boxed(
                measurement: nil, error: (failure.error, failure.rawHex), name: index == nil ? failure.name : nil)
            self.init(
                seq: failure.seq, milliseconds: failure.time.millisecondsSince1970, centidegrees: 0,
                unit: .celsius, name: index ?? 0, payload: .boxed(boxed))
        default:
            return nil
        }
    }

    /// The entry for `reading`.
    init(_ reading: Reading, names: inout HistoryNames) {
        let index = names.index(of: reading.name)
        let measurement = reading.measurement
        var centidegrees: Int32 = 0
        let payload: Payload
        if index != nil || reading.name == nil, names.isUsual(measurement.profile),
            let text = ShortText(measurement.raw), let scaled = Self.centidegreesAlone(measurement.quantities)
        {
            centidegrees = scaled
            payload = .text(text)
        } else {
            payload = .boxed(Boxed(measurement: measurement, error: nil, name: index == nil ? reading.name : nil))
        }
        self.init(
            seq: reading.seq, milliseconds: reading.time.millisecondsSince1970, centidegrees: centidegrees,
            unit: measurement.unit, name: index ?? 0, payload: payload)
    }

    private init(
        seq: UInt64, milliseconds: Int64, centidegrees: Int32, unit: TemperatureUnit, name: UInt8, payload: Payload
    ) {
        (self.seq, self.milliseconds, self.centidegrees) = (seq, milliseconds, centidegrees)
        (self.unit, self.name, self.payload) = (unit, name, payload)
    }

    /// The temperature × 100 when it is the only quantity and a whole number of hundredths
    /// that gives the temperature back exactly.
    private static func centidegreesAlone(_ quantities: Quantities) -> Int32? {
        guard let celsius = quantities[.temperature],
            Quantity.allCases.allSatisfy({ $0 == .temperature || quantities[$0] == nil })
        else { return nil }
        let scaled = (celsius * 100).rounded()
        guard scaled.magnitude < 2_000_000_000 else { return nil }
        let centidegrees = Int32(scaled)
        return (Double(centidegrees) / 100).bitPattern == celsius.bitPattern ? centidegrees : nil
    }

    /// The reading this entry stored, or nil for a reading error.
    func reading(address: String, names: HistoryNames) -> Reading? {
        let time = Timestamp(millisecondsSince1970: milliseconds)
        switch payload {
        case .text(let text):
            let measurement = Measurement(
                profile: names.usualProfile, quantities: Quantities([.temperature: Double(centidegrees) / 100]),
                unit: unit, raw: text.string)
            return Reading(seq: seq, time: time, address: address, name: names[name], measurement: measurement)
        case .boxed(let boxed):
            guard let measurement = boxed.measurement else { return nil }
            return Reading(
                seq: seq, time: time, address: address, name: boxed.name ?? names[name], measurement: measurement)
        }
    }

    /// The event this entry stored, as it was recorded.
    func event(address: String, names: HistoryNames) -> Event {
        if let reading = reading(address: address, names: names) { return .reading(reading) }
        guard case .boxed(let boxed) = payload, let error = boxed.error else { preconditionFailure("not a reading") }
        return .readingError(
            ReadingFailure(
                seq: seq, time: Timestamp(millisecondsSince1970: milliseconds), address: address,
                name: boxed.name ?? names[name], error: error.message, rawHex: error.rawHex))
    }
}

/// Up to 7 UTF-8 bytes of text without NUL, stored inline (7 bytes, so that
/// ``HistoryEntry/Payload`` keeps its case in the eighth).
struct ShortText {
    private var bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0, 0)

    /// Nil when `text` is longer than 7 bytes or holds a NUL.
    init?(_ text: String) {
        let utf8 = text.utf8
        guard utf8.count <= 7, !utf8.contains(0) else { return nil }
        withUnsafeMutableBytes(of: &bytes) { storage in
            for (index, byte) in utf8.enumerated() { storage[index] = byte }
        }
    }

    var string: String {
        withUnsafeBytes(of: bytes) { storage in
            String(decoding: storage.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}

/// The distinct names a device's entries carry, so that each entry keeps a one-byte index,
/// and the profile its readings usually come from, so that entries need not keep it.
///
/// At most 255 names; an entry with a name beyond those keeps it in its box.
struct HistoryNames {
    private var names: [String] = []
    /// The profile of the device's first reading.
    private(set) var usualProfile = ProfileID.unknown
    private var hasProfile = false

    /// Whether `profile` is the device's usual one (the first profile seen becomes it).
    mutating func isUsual(_ profile: ProfileID) -> Bool {
        if !hasProfile { (usualProfile, hasProfile) = (profile, true) }
        return profile == usualProfile
    }

    /// The index of `name` (1-based), adding it when there is room; nil for a nil name or
    /// a full list.
    mutating func index(of name: String?) -> UInt8? {
        guard let name else { return nil }
        if let found = names.firstIndex(of: name) { return UInt8(found + 1) }
        guard names.count < Int(UInt8.max) else { return nil }
        names.append(name)
        return UInt8(names.count)
    }

    /// The name at `index`; nil for 0.
    subscript(index: UInt8) -> String? {
        index == 0 ? nil : names[Int(index) - 1]
    }
}
