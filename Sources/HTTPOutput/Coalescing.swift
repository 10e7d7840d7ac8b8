/// Shares one run of an expensive fetch between the callers that ask while it runs.
///
/// Under a flood of requests the fetch runs back to back at most, never once per request:
/// the hub answers one snapshot at a time however many connections ask. A caller never
/// gets a value fetched before it asked... except from the run already under way, which
/// started at most one fetch earlier.
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

/// Lets at most `width` pieces of work run at once; the others wait their turn, in order.
///
/// The page and the history API read the history store: a bound keeps many clients from
/// queueing work on the store's thread faster than it answers.
actor WorkGate {
    private let width: Int
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(width: Int) {
        self.width = width
    }

    /// Runs `work` once fewer than `width` others run.
    func run<T: Sendable>(_ work: @Sendable () async -> T) async -> T {
        if running < width {
            running += 1
        } else {
            // The slot is handed over by the one that leaves, so `running` stays counted.
            await withCheckedContinuation { waiting.append($0) }
        }
        let result = await work()
        if waiting.isEmpty {
            running -= 1
        } else {
            waiting.removeFirst().resume()
        }
        return result
    }
}
