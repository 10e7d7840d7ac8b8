import SensorModel

/// The objects of a BTHome v2 packet: how long each is, and which are quantities measured here.
///
/// Objects are an id byte and little-endian data whose length only the id tells, so an
/// unknown id leaves the rest of the packet unreadable: decoding stops with
/// ``ReadingError/Kind/unknownObject`` rather than guessing.
enum BTHomeObjects {
    /// How the length of an object's data is known.
    enum Size: Equatable {
        /// Always this many bytes.
        case fixed(Int)
        /// A length byte follows the id (text 0x53, raw 0x54).
        case prefixed
    }

    /// How a measured object's data becomes a quantity: `data × numerator ÷ denominator`.
    struct Scale {
        var quantity: Quantity
        var isSigned: Bool
        var numerator = 1
        var denominator = 1
    }

    /// The packet id object's id (uint8 data), the counter of unencrypted packets.
    static let packetIDObject: UInt8 = 0x00

    /// The data length of every object id of the BTHome v2 format (bthome.io/format, checked
    /// against Home Assistant's bthome-ble decoder), `nil` for ids it does not define.
    static func size(of id: UInt8) -> Size? {
        switch id {
        case 0x00, 0x01, 0x09, 0x0F...0x11, 0x15...0x2F, 0x3A, 0x46, 0x57...0x59, 0x60, 0x64:
            .fixed(1)
        case 0x02, 0x03, 0x06...0x08, 0x0C...0x0E, 0x12...0x14, 0x3C, 0x3D, 0x3F...0x41, 0x43...0x45,
            0x47...0x4A, 0x51, 0x52, 0x56, 0x5A, 0x5D...0x5F, 0x61, 0xF0:
            .fixed(2)
        case 0x04, 0x05, 0x0A, 0x0B, 0x42, 0x4B, 0xF2:
            .fixed(3)
        case 0x3E, 0x4C...0x50, 0x55, 0x5B, 0x5C, 0x62, 0x63, 0xF1:
            .fixed(4)
        case 0x53, 0x54:
            .prefixed
        default:
            nil
        }
    }

    /// The quantity an object id carries, if it is one measured here; other known objects
    /// (buttons, illuminance, …) are skipped.
    static func scale(of id: UInt8) -> Scale? {
        switch id {
        case 0x01: Scale(quantity: .battery, isSigned: false)
        case 0x02: Scale(quantity: .temperature, isSigned: true, denominator: 100)
        case 0x03: Scale(quantity: .humidity, isSigned: false, denominator: 100)
        case 0x04: Scale(quantity: .pressure, isSigned: false, denominator: 100)
        case 0x08: Scale(quantity: .dewPoint, isSigned: true, denominator: 100)
        case 0x0C: Scale(quantity: .voltage, isSigned: false, denominator: 1000)
        case 0x12: Scale(quantity: .co2, isSigned: false)
        case 0x2E: Scale(quantity: .humidity, isSigned: false)
        case 0x45: Scale(quantity: .temperature, isSigned: true, denominator: 10)
        case 0x4A: Scale(quantity: .voltage, isSigned: false, denominator: 10)
        case 0x57: Scale(quantity: .temperature, isSigned: true)
        case 0x58: Scale(quantity: .temperature, isSigned: true, numerator: 35, denominator: 100)
        default: nil
        }
    }

    /// Decodes the objects in `data` from `start` to the end into `builder`.
    ///
    /// When a quantity comes twice (a device with two probes), the first object wins.
    ///
    /// - Parameter location: Where `data` is, for error details (`""` for the payload itself,
    ///   `" of the decrypted data"`).
    /// - Returns: The packet id, if the packet has one.
    static func decode(
        _ data: [UInt8], from start: Int, into builder: inout QuantitiesBuilder, location: String
    ) throws(ReadingError) -> UInt8? {
        var packetID: UInt8?
        var index = start
        while index < data.count {
            let id = data[index]
            let object = try objectData(data, at: index, raw: builder.raw, location: location)
            if id == packetIDObject, packetID == nil { packetID = data[object.lowerBound] }
            if let scale = scale(of: id) {
                let count =
                    scale.isSigned
                    ? data.signedLittleEndian(at: object.lowerBound, count: object.count)
                    : data.unsignedLittleEndian(at: object.lowerBound, count: object.count)
                try builder.add(scale.quantity, count, times: scale.numerator, per: scale.denominator)
            }
            index = object.upperBound
        }
        return packetID
    }

    /// Where the data of the object at `index` lies in `data`.
    ///
    /// - Throws: ``ReadingError/Kind/unknownObject`` for an id the format does not define,
    ///   ``ReadingError/Kind/malformed`` when the object runs past the end.
    private static func objectData(
        _ data: [UInt8], at index: Int, raw: [UInt8], location: String
    ) throws(ReadingError) -> Range<Int> {
        let id = data[index]
        // Written only for an error: every object of every packet comes through here.
        var name: String { "object 0x\(paddedHex(id, digits: 2)) at offset \(index)\(location)" }
        var dataStart = index + 1
        let length: Int
        switch size(of: id) {
        case nil:
            throw ReadingError(.unknownObject, raw: raw, detail: "\(name) is not a BTHome v2 object")
        case .fixed(let count)?:
            length = count
        case .prefixed?:
            guard dataStart < data.count else {
                throw ReadingError(.malformed, raw: raw, detail: "\(name) has no length byte")
            }
            length = Int(data[dataStart])
            dataStart += 1
        }
        guard dataStart + length <= data.count else {
            throw ReadingError(
                .malformed, raw: raw, detail: "\(name) needs \(length) bytes, \(data.count - dataStart) left")
        }
        return dataStart..<dataStart + length
    }
}
