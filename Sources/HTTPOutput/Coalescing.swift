/// Shares one run of an expensive fetch between the callers that ask while it runs.
///
/// Under a flood of requests the fetch runs back to back at most, never once per request:
/// the hub answers one snapshot at a time however many connections ask. A caller gets the
/// value of the run under way when it asked (begun a moment before), or of a new one.
actor Coalescing<Key: Hashable & Sendable, Value: Sendable> {
    private let fetch: @Sendable (Key) async -> Value
    private var running: [Key: Task<Value, Never>] = [:]

    init(_ fetch: @escaping @Sendable (Key) async -> Value) {
        self.fetch = fetch
    }

    /// The value for `key`: the run under way's, or a new run's.
    func value(for key: Key) async -> Value {
        if let task = running[key] { return await task.value }
        let fetch = fetch
        let task = Task { await fetch(key) }
        running[key] = task
        let value = await task.value
        if running[key] == task { running[key] = nil }
        return value
    }
}
