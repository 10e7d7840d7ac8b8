extension Dictionary {
    /// Runs `body` on the value stored for `key`, in place; nil when there is none.
    ///
    /// For the paths that run on every notification: `self[key]?.change()` goes through
    /// the subscript's modify accessor, whose frame is allocated on the heap when the
    /// value is large (two allocations per level, measured with heaptrack), while
    /// `values[index]` mutates without allocating.
    @inlinable
    public mutating func withValue<Result>(forKey key: Key, _ body: (inout Value) -> Result) -> Result? {
        guard let index = index(forKey: key) else { return nil }
        return body(&values[index])
    }
}
