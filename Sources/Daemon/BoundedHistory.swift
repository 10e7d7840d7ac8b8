/// A first-in-first-out buffer that keeps the newest `capacity` elements.
///
/// Appending to a full buffer evicts the oldest element and returns it, so the caller
/// can remember what was lost. Storage is an array with a moving head, compacted once
/// the dead prefix is as long as the capacity: O(1) amortised, no per-append shifting.
struct BoundedBuffer<Element> {
    let capacity: Int
    private var storage: [Element] = []
    private var head = 0

    init(capacity: Int) {
        precondition(capacity > 0, "a bounded buffer needs room for one element")
        self.capacity = capacity
    }

    var count: Int { storage.count - head }
    var isEmpty: Bool { count == 0 }
    var last: Element? { isEmpty ? nil : storage[storage.count - 1] }

    /// The element `offset` places from the oldest.
    subscript(offset: Int) -> Element {
        storage[head + offset]
    }

    /// Appends `element`; returns the evicted oldest element when the buffer was full.
    @discardableResult
    mutating func append(_ element: Element) -> Element? {
        storage.append(element)
        guard count > capacity else { return nil }
        let evicted = storage[head]
        head += 1
        if head >= capacity {
            storage.removeFirst(head)
            head = 0
        }
        return evicted
    }

    /// The elements from `offset` on, oldest first, at most `limit`.
    func suffix(from offset: Int, limit: Int) -> ArraySlice<Element> {
        let start = head + offset
        return storage[start..<min(storage.count, start + limit)]
    }

    /// The first offset whose element is not `isBefore`; elements must be partitioned.
    func partitionPoint(_ isBefore: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if isBefore(self[middle]) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
