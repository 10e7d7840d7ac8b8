@testable import Daemon
import Testing

@Suite("ReadingStore")
struct ReadingStoreTests {
    @Test("BoundedBuffer wraps around: order, evictions, search and suffixes at every fill", arguments: 1...5)
    func ring(capacity: Int) {
        var buffer = BoundedBuffer<Int>(capacity: capacity)
        var expected: [Int] = []
        for value in 1...(3 * capacity + 2) {
            let evicted = buffer.append(value)
            expected.append(value)
            #expect(evicted == (expected.count > capacity ? expected.removeFirst() : nil))
            #expect((0..<buffer.count).map { buffer[$0] } == expected && buffer.last == value)
            for cut in 0...value {
                #expect(buffer.partitionPoint { $0 <= cut } == expected.count { $0 <= cut })
            }
            for offset in 0...buffer.count {
                #expect(buffer.suffix(from: offset, limit: 2) == Array(expected.dropFirst(offset).prefix(2)))
            }
        }
    }
}
