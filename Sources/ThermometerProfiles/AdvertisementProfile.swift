public import SensorModel

/// A sensor that broadcasts its readings in advertisements: which advertisement fields carry
/// them, and how to decode one field's bytes.
///
/// Conforming types are plain values; decoding is pure (no I/O, no clock), never traps, and
/// checks every quantity against ``ReadingLimits``. Look profiles up through an
/// ``AdvertisementRegistry`` and decode through an ``AdvertisementDecoder``, which owns the
/// state encrypted formats need.
public protocol AdvertisementProfile: Sendable {
    /// What every other layer knows of this format: its id, names, models, quantities and
    /// counter (the one declaration of the family, in the profile's file).
    static var family: SensorFamily { get }
    /// The advertisement fields this profile reads. Several profiles may read one field
    /// (pvvx and ATC1441 share service data 0x181A); each claims its own payloads.
    var fields: [AdvertisementField] { get }
    /// Whether the readings come only in scan responses, which BlueZ asks for only when
    /// scanning actively (Govee). `false` unless a profile says otherwise.
    var needsActiveScanning: Bool { get }
    /// The devices whose manufacturer data this profile reads under any company id, by their
    /// local name: formats whose first two bytes sit where BlueZ expects the company id, so
    /// that the `ManufacturerData` key changes with the measurement (Inkbird, ThermoPro).
    /// `nil` (the default) when the profile reads only ``fields``.
    var manufacturerDataNames: LocalNameMatch? { get }

    /// The field whose latest payload this profile needs beside `field`'s, as
    /// ``AdvertisementContext/companion`` (SwitchBot: the model and battery in service data
    /// 0xFD3D, the temperature in manufacturer data 0x0969). `nil` (the default): none.
    func companion(of field: AdvertisementField) -> AdvertisementField?

    /// Decodes one field's payload, as BlueZ reports it (without the UUID or company id).
    ///
    /// - Parameters:
    ///   - payload: The field's bytes (``AdvertisementDecoder`` refuses empty and oversized
    ///     ones before any profile sees them).
    ///   - address: The device that sent it.
    ///   - keyring: Keys and replay state for encrypted formats; plaintext formats ignore it.
    /// - Returns: `nil` when the payload is not in this profile's format (another format on
    ///   the same field) or carries nothing this daemon measures (a BTHome button press);
    ///   otherwise a reading or the reason there is none.
    func decode(
        _ payload: [UInt8], from address: BluetoothAddress, keyring: inout AdvertisementKeyring
    ) -> Result<AdvertisementReading, ReadingError>?

    /// Decodes one field's payload knowing the field it came in, the device's local name and
    /// the latest payload of the field read with it: formats read under any company id need
    /// the first two (the id's two bytes are data, the name tells the model), SwitchBot the
    /// last. The default ignores them and calls ``decode(_:from:keyring:)``.
    ///
    /// - Parameters:
    ///   - field: The field the payload came in (for manufacturer data, its company id).
    ///   - context: The device's local name and the companion payload, when known.
    func decode(
        _ payload: [UInt8], in field: AdvertisementField, context: AdvertisementContext,
        from address: BluetoothAddress, keyring: inout AdvertisementKeyring
    ) -> Result<AdvertisementReading, ReadingError>?
}

extension AdvertisementProfile {
    /// The family, through an instance (``AdvertisementRegistry`` holds existentials).
    public var family: SensorFamily { Self.family }
    /// The profile's stable name in outputs, e.g. `bthome`.
    public var id: ProfileID { Self.family.id }
    /// A short human name, e.g. `"BTHome v2"`.
    public var name: String { Self.family.name }
    /// Whether the readings come only in scan responses, which BlueZ asks for only when
    /// scanning actively (Govee).
    public var needsActiveScanning: Bool { Self.family.needsActiveScanning }
    /// None: the profile reads only its ``fields``.
    public var manufacturerDataNames: LocalNameMatch? { nil }

    /// None: each field is read alone.
    public func companion(of field: AdvertisementField) -> AdvertisementField? { nil }

    /// Decodes through ``decode(_:from:keyring:)``: the field and the context are not needed.
    public func decode(
        _ payload: [UInt8], in field: AdvertisementField, context: AdvertisementContext,
        from address: BluetoothAddress, keyring: inout AdvertisementKeyring
    ) -> Result<AdvertisementReading, ReadingError>? {
        decode(payload, from: address, keyring: &keyring)
    }

    /// Whether the profile reads `field` of a device named `name`: one of its ``fields``, or
    /// manufacturer data under any company id from a device its ``manufacturerDataNames`` match.
    public func reads(_ field: AdvertisementField, name: String?) -> Bool {
        if fields.contains(field) { return true }
        guard case .manufacturerData = field, let names = manufacturerDataNames else { return false }
        return names.matches(name)
    }
}

/// What a format may need beside a field's payload.
public struct AdvertisementContext: Sendable, Equatable {
    /// The device's local name (BlueZ's `Name`), when it has one.
    public var name: String?
    /// The device's latest payload of the field its format reads with this one
    /// (``AdvertisementProfile/companion(of:)``), when one was heard.
    public var companion: [UInt8]?

    /// A context.
    public init(name: String? = nil, companion: [UInt8]? = nil) {
        self.name = name
        self.companion = companion
    }
}

/// Local names a profile recognises its devices by: each rule an exact name (compared
/// ignoring case), the start of one (compared exactly) or a part of one (ignoring case).
public struct LocalNameMatch: Sendable, Hashable {
    /// One way a name matches.
    public enum Rule: Sendable, Hashable {
        /// The whole name, compared ignoring case (Inkbird's `sps`, `ITH-13-B`).
        case equalsIgnoringCase(String)
        /// The name's beginning, compared exactly (ThermoPro's `TP35`).
        case hasPrefix(String)
        /// Anywhere in the name, ASCII letters compared ignoring case (Inkbird's `iBBQ`, which
        /// inkbird-ble looks for anywhere in a name).
        case containsIgnoringCase(String)
    }

    /// The rules; a name matches when one of them does.
    public let rules: [Rule]
    /// The whole names, lower-cased, and the longest of them in bytes: a name is lower-cased
    /// only when it could be one (this runs for every advertisement with manufacturer data).
    private let wholes: Set<String>
    private let longestWhole: Int
    /// The parts looked for anywhere, as lower-case UTF-8.
    private let parts: [[UInt8]]

    /// A match of any of `rules`.
    public init(_ rules: [Rule]) {
        self.rules = rules
        let wholes = rules.compactMap { rule in
            if case .equalsIgnoringCase(let whole) = rule { whole.lowercased() } else { nil }
        }
        self.wholes = Set(wholes)
        longestWhole = wholes.map(\.utf8.count).max() ?? 0
        parts = rules.compactMap { rule in
            if case .containsIgnoringCase(let part) = rule { Array(part.lowercased().utf8) } else { nil }
        }
    }

    /// Whether `name` matches one of the rules; a missing name matches none.
    public func matches(_ name: String?) -> Bool {
        guard let name else { return false }
        for rule in rules {
            if case .hasPrefix(let start) = rule, name.hasPrefix(start) { return true }
        }
        for part in parts where Self.name(name, contains: part) { return true }
        return name.utf8.count <= longestWhole && wholes.contains(name.lowercased())
    }

    /// Whether `part` (lower-case) is somewhere in `name`, ASCII letters compared ignoring
    /// case, in the name's own bytes (no lower-cased copy per advertisement).
    private static func name(_ name: String, contains part: [UInt8]) -> Bool {
        var name = name
        return name.withUTF8 { bytes in
            guard bytes.count >= part.count else { return false }
            return (0...bytes.count - part.count).contains { start in
                part.indices.allSatisfy { index in
                    let byte = bytes[start + index]
                    return part[index] == (byte &- 0x41 < 26 ? byte | 0x20 : byte)
                }
            }
        }
    }

    /// The text every matching name begins with, one per rule, as the rule spells it (for an
    /// advertisement monitor's local-name patterns, which match at the name's start only: a
    /// part is heard passively at the start of a name, spelled as the rule spells it, as the
    /// devices name themselves).
    public var prefixes: [String] {
        rules.map { rule in
            switch rule {
            case .equalsIgnoringCase(let whole): whole
            case .hasPrefix(let start): start
            case .containsIgnoringCase(let part): part
            }
        }
    }
}

/// One entry of an advertisement's service data or manufacturer data, as BlueZ keys them.
public enum AdvertisementField: Hashable, Sendable, CustomStringConvertible {
    /// Service data under a service UUID (BlueZ's `ServiceData` dictionary).
    case serviceData(BluetoothUUID)
    /// Manufacturer-specific data under a company identifier (BlueZ's `ManufacturerData`).
    case manufacturerData(UInt16)

    /// `service data 0xfcd2` or `manufacturer data 0x0499`, for log lines.
    public var description: String {
        switch self {
        case .serviceData(let uuid):
            "service data " + (uuid.shortValue.map { "0x" + paddedHex($0, digits: 4) } ?? uuid.uuidString)
        case .manufacturerData(let company):
            "manufacturer data 0x" + paddedHex(company, digits: 4)
        }
    }
}

/// A reading decoded from one advertisement.
public struct AdvertisementReading: Sendable, Equatable {
    /// The decoded quantities; `raw` is the payload in lower-case hex, as received.
    public var measurement: Measurement
    /// The sensor's own counter (BTHome packet id or encryption counter, pvvx/ATC1441 frame
    /// counter, Ruuvi measurement sequence); `nil` when the format has none (Govee).
    ///
    /// Devices repeat an advertisement many times: a reading with the same profile and
    /// counter as the last one from the same device is the same reading heard again.
    public var counter: UInt32?
    /// How many values ``counter`` takes before it wraps: the family's
    /// ``SensorFamily/counterModulus``, or that of the counter this packet used (BTHome's
    /// encryption counter is four bytes, its packet id one).
    public var counterModulus: UInt64
    /// Whether the payload was authenticated with the device's key (encrypted BTHome).
    public var isAuthenticated: Bool
    /// Secondary quantities left out of ``measurement`` as out of their range, each with its
    /// error (reported beside the reading): one implausible humidity does not cost the
    /// temperature.
    public var dropped: [ReadingError]
    /// The other probes' measurements from the same advertisement, on a device with several
    /// probes (``measurement`` is the first's): one reading each, judged with this one by the
    /// counter and payload (the same advertisement is not several repeats of itself).
    public var probes: [Measurement] = []

    /// Creates a reading; a counter without a modulus wraps at 2³².
    public init(
        measurement: Measurement, counter: UInt32?, counterModulus: UInt64?, isAuthenticated: Bool = false,
        dropped: [ReadingError] = []
    ) {
        self.measurement = measurement
        self.counter = counter
        self.counterModulus = counterModulus ?? 1 << 32
        self.isAuthenticated = isAuthenticated
        self.dropped = dropped
    }
}

/// The advertisement fields of one device, as BlueZ reports them on its `Device1` object.
public struct Advertisement: Sendable, Equatable {
    /// The device's address.
    public var address: BluetoothAddress
    /// `ServiceData`: payloads by service UUID.
    public var serviceData: [BluetoothUUID: [UInt8]]
    /// `ManufacturerData`: payloads by company identifier.
    public var manufacturerData: [UInt16: [UInt8]]
    /// The device's local name (BlueZ's `Name`), which some formats select their model by.
    public var name: String?

    /// Creates an advertisement.
    public init(
        address: BluetoothAddress, serviceData: [BluetoothUUID: [UInt8]] = [:],
        manufacturerData: [UInt16: [UInt8]] = [:], name: String? = nil
    ) {
        self.address = address
        self.serviceData = serviceData
        self.manufacturerData = manufacturerData
        self.name = name
    }

    /// The payload of one field, if the advertisement has it.
    public subscript(field: AdvertisementField) -> [UInt8]? {
        switch field {
        case .serviceData(let uuid): serviceData[uuid]
        case .manufacturerData(let company): manufacturerData[company]
        }
    }
}
