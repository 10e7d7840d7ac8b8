import BlectlProtocol
import SensorModel

/// How an ``Event`` (a reading or a reading error) maps to a row of `readings`.
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
        }
    }

    /// Every column, in the order statements bind and read them.
    static let columns: [String] =
        ["seq", "time", "address", "name", "profile"] + Quantity.allCases.map(column) + ["unit", "raw", "error"]

    // Positions in `columns` (0-based; a parameter's number is one more).
    static let seq: Int32 = 0
    static let time: Int32 = 1
    static let address: Int32 = 2
    static let name: Int32 = 3
    static let profile: Int32 = 4
    static func position(_ quantity: Quantity) -> Int32 { 5 + Int32(quantity.rawValue) }
    static let unit = Int32(5 + Quantity.allCases.count)
    static let raw = unit + 1
    static let error = unit + 2

    /// The columns as a select list.
    static let selectList = columns.joined(separator: ", ")

    /// Inserts one row, its parameters numbered in ``columns`` order. A `seq` already
    /// stored is kept, not duplicated (the writer filters those out before).
    static let insert =
        "INSERT OR IGNORE INTO readings (\(selectList)) VALUES (\(columns.indices.map { "?\($0 + 1)" }.joined(separator: ", ")))"
}

extension SQLiteStatement {
    /// Binds `event` as the parameters of ``ReadingsTable/insert``; false (nothing bound)
    /// for events that are not readings or reading errors.
    func bindRow(_ event: Event) -> Bool {
        typealias Column = ReadingsTable
        let identity: (seq: UInt64, time: Timestamp, address: String, name: String?)
        var measurement: Measurement?
        var error: String?
        let raw: String
        switch event {
        case .reading(let reading):
            identity = (reading.seq, reading.time, reading.address, reading.name)
            measurement = reading.measurement
            raw = reading.measurement.raw
        case .readingError(let failure):
            identity = (failure.seq, failure.time, failure.address, failure.name)
            error = failure.error
            raw = failure.rawHex
        default:
            return false
        }
        bind(Column.seq + 1, Int64(bitPattern: identity.seq))
        bind(Column.time + 1, identity.time.millisecondsSince1970)
        bind(Column.address + 1, identity.address)
        bind(Column.name + 1, identity.name)
        bind(Column.profile + 1, measurement?.profile.rawValue)
        for quantity in Quantity.allCases {
            bind(Column.position(quantity) + 1, measurement?.quantities[quantity])
        }
        bind(Column.unit + 1, measurement?.unit.rawValue)
        bind(Column.raw + 1, raw)
        bind(Column.error + 1, error)
        return true
    }

    /// The event in the current row, whose columns are ``ReadingsTable/columns``.
    func rowEvent() -> Event {
        typealias Column = ReadingsTable
        let seq = UInt64(bitPattern: integer(Column.seq) ?? 0)
        let time = Timestamp(millisecondsSince1970: integer(Column.time) ?? 0)
        let address = text(Column.address) ?? ""
        let name = text(Column.name)
        let raw = text(Column.raw) ?? ""
        if let error = text(Column.error) {
            return .readingError(
                ReadingFailure(seq: seq, time: time, address: address, name: name, error: error, rawHex: raw))
        }
        var quantities = Quantities()
        for quantity in Quantity.allCases { quantities[quantity] = double(Column.position(quantity)) }
        let measurement = Measurement(
            profile: text(Column.profile).map(ProfileID.init(rawValue:)) ?? .unknown, quantities: quantities,
            unit: text(Column.unit).flatMap(TemperatureUnit.init(rawValue:)) ?? .celsius, raw: raw)
        return .reading(Reading(seq: seq, time: time, address: address, name: name, measurement: measurement))
    }
}
