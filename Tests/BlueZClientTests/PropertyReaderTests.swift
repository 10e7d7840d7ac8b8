@testable import BlueZClient
import DBusCore
import Testing

@Suite struct PropertyReaderTests {
    private static let bytes: DBusValue = [UInt8]([0x40, 0x00, 0x01]).dbusValue
    private static let serviceData: [String: DBusValue] = [
        "0000fcd2-0000-1000-8000-00805f9b34fb": bytes, "x": .string("?"),
    ]
    private static let manufacturerData: [UInt16: DBusValue] = [0x0499: bytes, 0x004C: .uint32(7)]

    /// What a BlueZ property can hold under ServiceData's or ManufacturerData's name.
    private static let properties: [(String, DBusValue)] = [
        ("service data", serviceData.dbusValue), ("in a variant", .variant(serviceData.dbusValue)),
        ("company keys", manufacturerData.dbusValue), ("empty", [String: DBusValue]().dbusValue),
        ("a string", .string("not a map")), ("a map of strings", ["a": "b"].dbusValue),
        ("an empty map of strings", [String: String]().dbusValue),
    ]

    @Test(arguments: properties)
    func bytesByKeyReadAsTheGenericDecodingDoes(_ label: String, _ value: DBusValue) {
        var fast = PropertyReader(["P": value])
        var generic = PropertyReader(["P": value])
        let strings = fast.readBytesByKey("P", as: String.self)
        #expect(strings == Self.bytesByKey(generic.read("P", as: [String: DBusValue].self)), "\(label)")
        let companies = fast.readBytesByKey("P", as: UInt16.self)
        #expect(companies == Self.bytesByKey(generic.read("P", as: [UInt16: DBusValue].self)), "\(label)")
        #expect(fast.problems == generic.problems, "\(label)")
    }

    @Test func bytesByKeyKeepsTheBytesAndSkipsTheRest() {
        var reader = PropertyReader(["ServiceData": Self.serviceData.dbusValue, "Absent": .string("")])
        #expect(
            reader.readBytesByKey("ServiceData", as: String.self) == [
                "0000fcd2-0000-1000-8000-00805f9b34fb": [0x40, 0x00, 0x01]
            ])
        #expect(reader.readBytesByKey("Missing", as: String.self).isEmpty)
        #expect(reader.problems.isEmpty)
        #expect(reader.readBytesByKey("Absent", as: String.self).isEmpty)
        #expect(reader.problems.count == 1)
    }

    /// The reference: the generic `[Key: DBusValue]` decoding, each value's bytes.
    private static func bytesByKey<Key>(_ map: [Key: DBusValue]?) -> [Key: [UInt8]] {
        (map ?? [:]).compactMapValues { try? $0.decode([UInt8].self) }
    }
}
