/// A first-in first-out queue of outgoing events, in `seq` order, with no copying on removal.
struct EventQueue {
    private var items: [Outgoing] = []
    private var head = 0

    var count: Int { items.count - head }
    var first: Outgoing? { head < items.count ? items[head] : nil }

    mutating func append(_ item: Outgoing) {
        items.append(item)
    }

    /// Puts `earlier` (all before the queue's first) in front.
    mutating func prepend(_ earlier: [Outgoing]) {
        items = earlier + items[head...]
        head = 0
    }

    mutating func removeFirst() {
        head += 1
        if head == items.count {
            removeAll()
        } else if head >= 4096, head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
    }

    mutating func dropFirst(while predicate: (Outgoing) -> Bool) {
        while let first, predicate(first) { removeFirst() }
    }

    mutating func removeAll() {
        items.removeAll(keepingCapacity: true)
        head = 0
    }
}
