import DBusCore

/// When each peripheral advertises next, as a min-heap: the scan takes the earliest in
/// O(log n), so a flood of ten thousand advertisers costs the mock little per report.
struct AdvertisingQueue {
    private var heap: [(due: ContinuousClock.Instant, peripheral: Int)] = []

    /// A queue holding each peripheral's next time, `due[index]`.
    init(_ due: [ContinuousClock.Instant]) {
        heap = due.enumerated().map { ($0.element, $0.offset) }
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
    }

    /// The peripheral that advertises first, and when.
    var first: (due: ContinuousClock.Instant, peripheral: Int)? { heap.first }

    /// Moves the first peripheral's next advertisement to `due`.
    mutating func rescheduleFirst(_ due: ContinuousClock.Instant) {
        guard !heap.isEmpty else { return }
        heap[0].due = due
        siftDown(0)
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].due < heap[smallest].due { smallest = left }
            if right < heap.count, heap[right].due < heap[smallest].due { smallest = right }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}

/// Devices reported in the current discovery (`discovery_found`): membership in O(1), and
/// the order most recent first.
struct FoundDevices: Sendable {
    private var order: [ObjectPath] = []
    private var members: Set<ObjectPath> = []

    init() {}

    func contains(_ path: ObjectPath) -> Bool { members.contains(path) }

    mutating func insert(_ path: ObjectPath) {
        guard members.insert(path).inserted else { return }
        order.append(path)
    }

    mutating func remove(_ path: ObjectPath) {
        guard members.remove(path) != nil else { return }
        // Compacted now and then, so removals cost O(1) amortised.
        if order.count > 2 * members.count + 64 { order.removeAll { !members.contains($0) } }
    }

    /// The devices, most recently found first.
    var mostRecentFirst: [ObjectPath] {
        var listed: Set<ObjectPath> = []
        // A device removed and found again appears twice in `order`: its later place counts.
        return order.reversed().filter { members.contains($0) && listed.insert($0).inserted }
    }
}
