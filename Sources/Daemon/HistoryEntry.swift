import BlectlProtocol

/// One stored reading or reading error, without its device's address and name.
///
/// History holds a thousand of these per device, so they take 32 bytes and no heap of
/// their own for an everyday reading: its text in up to 7 UTF-8 bytes (`"44.7 C"`,
/// `"112.5 F"`, the hex of a 3-byte value) and its temperature in hundredths of a degree,
/// as the profiles round it. Anything else (a longer text, a temperature that is not a
/// whole number of hundredths, a reading error) is boxed. The address is kept once per
/// device, and the name as an index into the device's ``HistoryNames``.
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
        let celsius: Double
        let text: String
        /// Set for a reading error: `text` is then the value's hex.
        let error: String?
        /// A name that did not fit the device's ``HistoryNames``.
        let name: String?

        init(celsius: Double, text: String, error: String?, name: String?) {
            (self.celsius, self.text, self.error, self.name) = (celsius, text, error, name)
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
                celsius: 0, text: failure.rawHex, error: failure.error, name: index == nil ? failure.name : nil)
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
        var centidegrees: Int32 = 0
        let payload: Payload
        if index != nil || reading.name == nil, let text = ShortText(reading.raw),
            let scaled = Self.centidegrees(reading.celsius)
        {
            centidegrees = scaled
            payload = .text(text)
        } else {
            payload = .boxed(
                Boxed(
                    celsius: reading.celsius, text: reading.raw, error: nil, name: index == nil ? reading.name : nil))
        }
        self.init(
            seq: reading.seq, milliseconds: reading.time.millisecondsSince1970, centidegrees: centidegrees,
            unit: reading.unit, name: index ?? 0, payload: payload)
    }

    private init(
        seq: UInt64, milliseconds: Int64, centidegrees: Int32, unit: TemperatureUnit, name: UInt8, payload: Payload
    ) {
        (self.seq, self.milliseconds, self.centidegrees) = (seq, milliseconds, centidegrees)
        (self.unit, self.name, self.payload) = (unit, name, payload)
    }

    /// `celsius` × 100 when that is a whole number that gives `celsius` back exactly.
    private static func centidegrees(_ celsius: Double) -> Int32? {
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
            return Reading(
                seq: seq, time: time, address: address, name: names[name],
                celsius: Double(centidegrees) / 100, raw: text.string, unit: unit)
        case .boxed(let boxed):
            guard boxed.error == nil else { return nil }
            return Reading(
                seq: seq, time: time, address: address, name: boxed.name ?? names[name],
                celsius: boxed.celsius, raw: boxed.text, unit: unit)
        }
    }

    /// The event this entry stored, as it was recorded.
    func event(address: String, names: HistoryNames) -> Event {
        if let reading = reading(address: address, names: names) { return .reading(reading) }
        guard case .boxed(let boxed) = payload, let error = boxed.error else { preconditionFailure("not a reading") }
        return .readingError(
            ReadingFailure(
                seq: seq, time: Timestamp(millisecondsSince1970: milliseconds), address: address,
                name: boxed.name ?? names[name], error: error, rawHex: boxed.text))
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

/// The distinct names a device's entries carry, so that each entry keeps a one-byte index.
///
/// At most 255; an entry with a name beyond those keeps it in its box.
struct HistoryNames {
    private var names: [String] = []

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
