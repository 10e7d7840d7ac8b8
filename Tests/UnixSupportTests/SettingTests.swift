import Testing
import UnixSupport

/// A module's settings, declared once and composed into a program's configuration.
@Suite("Setting")
struct SettingTests {
    struct Part: Equatable {
        var count = 3
        var label: String? = "default"
        var items: [String] = []
    }

    struct Whole: Equatable {
        var first = Part()
        var second = Part()
    }

    static let table: [Setting<Part>] = [
        .integer("count", flag: "count", "N", "How many", at: \.count, within: 1...9),
        .optional("label", "TEXT", "A label", at: \.label) { $0 },
        .list("items", flag: "item", "ITEM", "Items (repeatable)", at: \.items) { $0 },
    ]

    @Test("a lifted setting writes its part of the whole and nothing else")
    func lifted() throws {
        let count = try #require(Self.table.first.map { $0.lifted(into: \Whole.second) })
        var whole = Whole()
        try count.apply(&whole, ["7"])
        #expect(whole.second.count == 7 && whole.first == Part())
        #expect(count.key == "count" && count.flag == "count" && count.kind == .single && count.help == "How many")
    }

    @Test("a value out of range is refused with the range; the configuration is untouched")
    func range() {
        var part = Part()
        #expect(throws: SettingError("expected a whole number from 1 to 9, got '10'")) {
            try Self.table[0].apply(&part, ["10"])
        }
        #expect(part == Part())
    }

    @Test("an optional setting given nothing goes back to nil; a list is a repeated option")
    func kinds() throws {
        var part = Part()
        try Self.table[1].apply(&part, [])
        #expect(part.label == nil)
        try Self.table[2].apply(&part, ["a", "b"])
        #expect(part.items == ["a", "b"])
        #expect(Self.table[2].option == .repeated("item", "ITEM", help: "Items (repeatable)"))
        #expect(Self.table[1].option == nil)
    }
}
