@testable import BlueZClient
import DBusCore
import Testing

/// The mirror keeps one copy of text that every object repeats (names, UUIDs, parent
/// paths), as a decoded message would not.
@Suite struct ObjectTreeSharingTests {
    static let uuid = "00002a6e-0000-1000-8000-00805f9b34fb"
    static let device: ObjectPath = "/org/bluez/hci0/dev_DC_A6_32_00_00_01"

    /// A heap copy, as a decoded message holds.
    static func fresh(_ text: String) -> String { String(decoding: Array(text.utf8), as: UTF8.self) }

    /// Where a string's bytes are: equal for strings that share storage.
    static func storage(_ text: String) -> UnsafeRawPointer? {
        var text = text
        return text.withUTF8 { UnsafeRawPointer($0.baseAddress) }
    }

    static let servicePath: ObjectPath = "/org/bluez/hci0/dev_DC_A6_32_00_00_01/service0008"

    static func path(_ text: String) -> ObjectPath { ObjectPath(text)! }

    static func characteristic(_ name: String) -> (ObjectPath, [String: [String: DBusValue]]) {
        let path = Self.path("\(servicePath.rawValue)/\(name)")
        let properties: [String: DBusValue] = [
            "UUID": .string(fresh(uuid)),
            "Service": .objectPath(Self.path(fresh(servicePath.rawValue))),
            "Flags": .array(element: "s", [.string("notify")]),
        ]
        return (path, [fresh(BlueZ.Interface.gattCharacteristic): properties, fresh(BlueZ.Interface.properties): [:]])
    }

    static let service: [String: [String: DBusValue]] = [
        BlueZ.Interface.gattService: ["UUID": .string(fresh(uuid)), "Device": .objectPath(device)]
    ]

    @Test func objectsAddedOneByOneShareNamesUUIDsAndParentPaths() throws {
        var tree = ObjectTree()
        tree.add(Self.servicePath, Self.service)
        let (first, firstInterfaces) = Self.characteristic("char0009")
        let (second, secondInterfaces) = Self.characteristic("char000c")
        tree.add(first, firstInterfaces)
        tree.add(second, secondInterfaces)
        try expectShared(tree, first, second)
    }

    @Test func aSnapshotSharesTheSameWay() throws {
        let (first, firstInterfaces) = Self.characteristic("char0009")
        let (second, secondInterfaces) = Self.characteristic("char000c")
        let tree = ObjectTree(snapshot: [
            first: firstInterfaces, Self.servicePath: Self.service, second: secondInterfaces,
        ])
        try expectShared(tree, first, second)
    }

    private func expectShared(_ tree: ObjectTree, _ first: ObjectPath, _ second: ObjectPath) throws {
        let interface = BlueZ.Interface.gattCharacteristic
        let a = try #require(tree.properties(first, interface))
        let b = try #require(tree.properties(second, interface))
        guard case .string(let uuidA)? = a["UUID"], case .string(let uuidB)? = b["UUID"],
            case .objectPath(let serviceA)? = a["Service"], case .objectPath(let serviceB)? = b["Service"]
        else { Issue.record("properties changed type: \(a) \(b)"); return }
        #expect(uuidA == Self.uuid)
        #expect(Self.storage(uuidA) == Self.storage(uuidB))
        let serviceKey = try #require(tree.objects.keys.first { $0 == serviceA })
        #expect(Self.storage(serviceA.rawValue) == Self.storage(serviceKey.rawValue))
        #expect(Self.storage(serviceB.rawValue) == Self.storage(serviceKey.rawValue))
        let names = try #require(tree.objects[first]).keys
        for name in names {
            #expect(Self.storage(name) == Self.storage(ObjectTree.knownName(name)))
        }
        #expect(Set(names) == [interface, BlueZ.Interface.properties])
    }

    @Test func theUUIDTableIsBounded() {
        var tree = ObjectTree()
        for index in 0..<(ObjectTree.uuidLimit + 10) {
            let uuid = "00000000-0000-1000-8000-\(String(100_000_000_000 + index))"
            tree.add(Self.path("/o\(index)"), [BlueZ.Interface.gattService: ["UUID": .string(uuid)]])
        }
        #expect(tree.uuids.count == ObjectTree.uuidLimit)
        #expect(tree.objects.count == ObjectTree.uuidLimit + 10)
    }
}
