/// A first-in-first-out buffer that keeps the newest `capacity` elements.
///
/// Appending to a full buffer evicts the oldest element and returns it, so the caller
/// can remember what was lost. Storage is a ring that grows (doubling) up to exactly
/// `capacity` slots, then overwrites the oldest in place: O(1) per append, and a full
/// buffer holds no dead slots.
struct BoundedBuffer<Element> {
    let capacity: Int
    private var storage: [Element] = []
    /// The slot of the oldest element; nonzero only once `storage` is full.
    private var head = 0

    init(capacity: Int) {
        precondition(capacity > 0, "a bounded buffer needs room for one element")
        self.capacity = capacity
    }

    var count: Int { storage.count }
    var isEmpty: Bool { storage.isEmpty }
    var last: Element? { isEmpty ? nil : self[count - 1] }

    /// The element `offset` places from the oldest.
    subscript(offset: Int) -> Element {
        storage[slot(offset)]
    }

    private func slot(_ offset: Int) -> Int {
        let slot = head + offset
        return slot < storage.count ? slot : slot - storage.count
    }

    /// Appends `element`; returns the evicted oldest element when the buffer was full.
    @discardableResult
    mutating func append(_ element: Element) -> Element? {
        guard storage.count == capacity else {
            // Grown by hand so the last step stops at `capacity`, not the next power of two.
            if storage.count == storage.capacity {
                storage.reserveCapacity(min(capacity, max(16, 2 * storage.count)))
            }
            storage.append(element)
            return nil
        }
        var evicted = element
        swap(&evicted, &storage[head])  // moved out, not copied: no retain and release
        head = head + 1 == capacity ? 0 : head + 1
        return evicted
    }

    /// The elements from `offset` on, oldest first, at most `limit`.
    func suffix(from offset: Int, limit: Int) -> [Element] {
        (offset..<offset + min(max(0, limit), count - offset)).map { self[$0] }
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
