import Testing
import UnixSupport

@Suite("RecencyTable")
struct RecencyTableTests {
    @Test("at capacity, the entry touched longest ago goes first; pinned ones stay")
    func eviction() {
        var table = RecencyTable<Int, String>(capacity: 3)
        for key in 1...3 { #expect(table.touch(key, "v\(key)") == nil) }
        _ = table.touch(1, "v1 again")  // 2 is now the oldest
        #expect(table.touch(4, "v4")?.key == 2)
        // 3 is pinned: 1 goes instead.
        #expect(table.touch(5, "v5") { key, _ in key == 3 }?.key == 1)
        #expect(Set(table.keys) == [3, 4, 5])
        #expect(table[5] == "v5")
    }

    @Test("modify changes a value in place without touching it; remove forgets it")
    func modify() {
        var table = RecencyTable<Int, Int>(capacity: 2)
        table.touch(1, 10)
        table.touch(2, 20)
        #expect(
            table.modify(1) { value -> Int in
                value += 1
                return value
            } == 11)
        #expect(table.modify(9) { $0 } == nil)
        // 1 was modified, not touched: it is still the oldest.
        #expect(table.touch(3, 30)?.key == 1)
        #expect(table.remove(2) == 20)
        #expect(table.count == 1)
    }

    @Test("200,000 touches of 10,000 keys keep 1,024 entries, evicting one per new key")
    func flood() {
        var table = RecencyTable<Int, Int>(capacity: 1024)
        var evicted = 0
        for step in 0..<200_000 where table.touch(step % 10_000, step) != nil { evicted += 1 }
        #expect(table.count == 1024)
        #expect(evicted == 200_000 - 1024)
        #expect(evicted > 0)
    }

    @Test("when everything is pinned nothing is evicted, and evictIfFull can try a laxer rule")
    func allPinned() {
        var table = RecencyTable<Int, Int>(capacity: 1)
        table.touch(1, 1)
        #expect(table.touch(2, 2) { _, _ in true } == nil)
        #expect(table.count == 2)
        #expect(table.evictIfFull { key, _ in key == 2 }?.key == 1)
        #expect(table.evictIfFull { _, _ in false } == nil)
    }
}
