/// A dictionary of at most `capacity` entries that forgets the entry touched longest ago
/// first, skipping pinned ones (a device table in a crowded place: ten thousand devices
/// heard, a thousand kept).
///
/// Every operation is O(1) amortised: touches are appended to a queue and outdated queue
/// entries skipped when they reach its front; the queue is rebuilt once most of it is
/// outdated.
///
/// Its members are `@inlinable` so that clients in other modules (the hub's peripheral table
/// and the thermometer monitor, which touch it for every reading) get it specialised for
/// their key and value; unspecialised, each call looked up generic metadata at run time.
public struct RecencyTable<Key: Hashable, Value> {
    /// The most entries kept.
    public let capacity: Int
    @usableFromInline var entries: [Key: (value: Value, stamp: UInt64)] = [:]
    @usableFromInline var queue: [(key: Key, stamp: UInt64)] = []
    @usableFromInline var head = 0
    @usableFromInline var clock: UInt64 = 0

    /// An empty table for at most `capacity` entries (at least one).
    @inlinable public init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// How many entries are kept.
    @inlinable public var count: Int { entries.count }

    /// The keys, in no particular order.
    @inlinable public var keys: [Key] { Array(entries.keys) }

    /// The values, in no particular order.
    @inlinable public var values: [Value] { entries.values.map(\.value) }

    /// The value for `key`, without touching it.
    @inlinable public subscript(key: Key) -> Value? { entries[key]?.value }

    /// Stores `value` for `key` as the most recently touched entry; when the table is then
    /// over capacity, forgets the least recently touched entry that `pinned` lets go (none
    /// when all are pinned) and returns it.
    @inlinable @discardableResult
    public mutating func touch(
        _ key: Key, _ value: Value, pinned: (Key, Value) -> Bool = { _, _ in false }
    ) -> (key: Key, value: Value)? {
        clock &+= 1
        entries[key] = (value, clock)
        queue.append((key, clock))
        compactIfMostlyOutdated()
        guard entries.count > capacity else { return nil }
        return evictOldest(sparing: key, pinned: pinned)
    }

    /// When the table is over capacity, forgets the least recently touched entry that
    /// `pinned` lets go and returns it (a second, laxer try after ``touch(_:_:pinned:)``).
    @inlinable @discardableResult
    public mutating func evictIfFull(pinned: (Key, Value) -> Bool) -> (key: Key, value: Value)? {
        guard entries.count > capacity else { return nil }
        return evictOldest(sparing: nil, pinned: pinned)
    }

    /// Changes the value for `key` in place without touching it; returns what `body` returns,
    /// or nil when the key is not kept.
    @inlinable public mutating func modify<T>(_ key: Key, _ body: (inout Value) -> T) -> T? {
        guard let index = entries.index(forKey: key) else { return nil }
        return body(&entries.values[index].value)
    }

    /// Forgets `key`; returns its value.
    @inlinable @discardableResult
    public mutating func remove(_ key: Key) -> Value? {
        entries.removeValue(forKey: key)?.value
    }

    /// Forgets every entry.
    @inlinable public mutating func removeAll() {
        entries = [:]
        queue = []
        head = 0
    }

    @usableFromInline
    mutating func evictOldest(sparing newest: Key?, pinned: (Key, Value) -> Bool) -> (key: Key, value: Value)? {
        // Each queue entry is looked at most once per eviction; a pinned one goes to the back.
        var budget = queue.count - head
        while budget > 0, head < queue.count {
            budget -= 1
            let (key, stamp) = queue[head]
            head += 1
            guard let entry = entries[key], entry.stamp == stamp else { continue }  // outdated
            if key == newest || pinned(key, entry.value) {
                clock &+= 1
                entries[key]?.stamp = clock
                queue.append((key, clock))
                continue
            }
            entries[key] = nil
            return (key, entry.value)
        }
        return nil
    }

    @inlinable mutating func compactIfMostlyOutdated() {
        guard queue.count > 2 * entries.count + 64 else { return }
        queue = entries.map { ($0.key, $0.value.stamp) }.sorted { $0.1 < $1.1 }
        head = 0
    }
}
