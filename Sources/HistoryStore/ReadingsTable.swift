import BlectlProtocol
import SensorModel

/// How an ``Event`` (a reading or a reading error) maps to a row of `readings` (schema
/// version 3) and back.
enum ReadingsTable {
    /// The column of each quantity. A new ``Quantity`` case stops the build here: it needs
    /// a column, added by a new ``Schema`` migration.
    static func column(_ quantity: Quantity) -> String {
        switch quantity {
        case .temperature: "celsius"
        case .humidity: "humidity"
        case .battery: "battery"
        case .pressure: "pressure"
        case .voltage: "voltage"
        case .co2: "co2"
        case .dewPoint: "dew_point"
        }
    }

    /// The columns an insert binds, in parameter order.
    static let insertColumns: [String] =
        ["seq", "time", "device", "label"] + Quantity.allCases.map(column) + [
            "unit", "raw", "error", "source", "probe",
        ]

    /// Inserts one row, its parameters numbered in ``insertColumns`` order. A `seq` already
    /// stored is kept, not duplicated (the writer filters those out before).
    static let insert =
        "INSERT OR IGNORE INTO readings (\(insertColumns.joined(separator: ", "))) VALUES "
        + "(\(insertColumns.indices.map { "?\($0 + 1)" }.joined(separator: ", ")))"

    /// Parameter numbers of the insert (1-based); the quantities and what follows them are
    /// where ``Tail`` says.
    enum Parameter {
        static let seq: Int32 = 1
        static let time: Int32 = 2
        static let device: Int32 = 3
        static let label: Int32 = 4
    }

    /// The quantities and the members after them: fifth and on both in an insert's
    /// parameters (after seq, time, device and label, 1-based) and in a query's columns
    /// (after seq, time, address, name and profile, 0-based).
    enum Tail {
        static func quantity(_ quantity: Quantity) -> Int32 { 5 + Int32(quantity.rawValue) }
        static let unit = Int32(5 + Quantity.allCases.count)
        static let raw = unit + 1
        static let error = unit + 2
        static let source = unit + 3
        static let probe = unit + 4
    }

    /// The columns a query reads, in ``Column`` order: the row's own, with its device's address
    /// and its label's name and profile.
    static let selectList =
        (["r.seq", "r.time", "d.address", "l.name", "l.profile"] + Quantity.allCases.map { "r.\(column($0))" }
        + ["r.unit", "r.raw", "r.error", "r.source", "r.probe"]).joined(separator: ", ")

    /// Version 1's `readings` columns in ``Column`` order, as a rebuild reads them (every
    /// reading was live then, and of a device's only sensor).
    static let legacyColumns =
        (["seq", "time", "address", "name", "profile"] + Quantity.allCases.map(legacyColumn)
        + ["unit", "raw", "error", "NULL", "NULL"]).joined(separator: ", ")

    /// The version-1 column of `quantity`, or `NULL` for one that version had no column for.
    /// A new ``Quantity`` stops the build here too: version 1's columns never change.
    static func legacyColumn(_ quantity: Quantity) -> String {
        switch quantity {
        case .temperature, .humidity, .battery, .pressure, .voltage: column(quantity)
        case .co2, .dewPoint: "NULL"
        }
    }

    /// The tables a query reads from, as `r` (readings), `d` (devices) and `l` (labels).
    static let joined = "readings r JOIN devices d ON d.id = r.device JOIN labels l ON l.id = r.label"

    /// Positions in a result row (0-based), for version 2's ``selectList`` and version 1's
    /// ``legacyColumns`` alike; the quantities and what follows them are where ``Tail`` says.
    enum Column {
        static let seq: Int32 = 0
        static let time: Int32 = 1
        static let address: Int32 = 2
        static let name: Int32 = 3
        static let profile: Int32 = 4
    }
}

/// What an event stores besides its quantities: the device and label it refers to.
struct RowIdentity {
    /// The text key of the device (`devices.address`).
    var address: BluetoothAddress
    /// The text key of the label (`labels.name`, `labels.profile`).
    var name: String?
    var profile: String?
}

extension Event {
    /// A reading's source; nil for other events.
    var readingSource: ReadingSource? {
        if case .reading(let reading) = self { reading.source } else { nil }
    }

    /// The device and label a reading or reading error is stored under; nil for other events.
    var rowIdentity: RowIdentity? {
        switch self {
        case .reading(let reading):
            RowIdentity(address: reading.address, name: reading.name, profile: reading.measurement.profile.rawValue)
        case .readingError(let failure):
            RowIdentity(address: failure.address, name: failure.name, profile: nil)
        default:
            nil
        }
    }
}

extension SQLiteStatement {
    /// Binds `event` as the parameters of ``ReadingsTable/insert``, under the `devices` and
    /// `labels` keys the caller resolved; false (nothing bound) for events that are not
    /// readings or reading errors.
    func bindRow(_ event: Event, device: Int64, label: Int64) -> Bool {
        typealias Parameter = ReadingsTable.Parameter
        typealias Tail = ReadingsTable.Tail
        let identity: (seq: UInt64, time: Timestamp)
        var measurement: Measurement?
        var error: String?
        let raw: String
        switch event {
        case .reading(let reading):
            identity = (reading.seq, reading.time)
            measurement = reading.measurement
            raw = reading.measurement.raw
        case .readingError(let failure):
            identity = (failure.seq, failure.time)
            error = failure.error
            raw = failure.rawHex
        default:
            return false
        }
        bind(Parameter.seq, Int64(bitPattern: identity.seq))
        bind(Parameter.time, identity.time.millisecondsSince1970)
        bind(Parameter.device, device)
        bind(Parameter.label, label)
        for quantity in Quantity.allCases {
            bind(Tail.quantity(quantity), measurement?.quantities[quantity])
        }
        bind(Tail.unit, measurement?.unit.rawValue)
        bindRaw(Tail.raw, raw)
        bind(Tail.error, error)
        bind(Tail.source, event.readingSource?.recorded?.rawValue)
        if let probe = measurement?.probe { bind(Tail.probe, Int64(probe)) } else { bindNull(Tail.probe) }
        return true
    }

    /// The event in the current row, whose columns are in ``ReadingsTable/Column`` order.
    func rowEvent() -> Event {
        typealias Column = ReadingsTable.Column
        typealias Tail = ReadingsTable.Tail
        let seq = UInt64(bitPattern: integer(Column.seq) ?? 0)
        let time = Timestamp(millisecondsSince1970: integer(Column.time) ?? 0)
        // Only blectld writes the table, and only addresses it parsed: 00:00:00:00:00:00
        // stands for a row damaged since.
        let address = text(Column.address).flatMap(BluetoothAddress.init) ?? BluetoothAddress(value: 0)
        let name = text(Column.name)
        let raw = rawText(Tail.raw)
        if let error = text(Tail.error) {
            return .readingError(
                ReadingFailure(seq: seq, time: time, address: address, name: name, error: error, rawHex: raw))
        }
        var quantities = Quantities()
        for quantity in Quantity.allCases { quantities[quantity] = double(Tail.quantity(quantity)) }
        let measurement = Measurement(
            profile: text(Column.profile).map(ProfileID.init(rawValue:)) ?? .unknown, quantities: quantities,
            unit: text(Tail.unit).flatMap(TemperatureUnit.init(rawValue:)) ?? .celsius, raw: raw,
            probe: integer(Tail.probe).flatMap(UInt8.init(exactly:)))
        let source = text(Tail.source).flatMap(ReadingSource.init(rawValue:)) ?? .live
        return .reading(
            Reading(seq: seq, time: time, address: address, name: name, measurement: measurement, source: source))
    }
}
