/// The timers and loops of one bluetoothd, by key, so that a key's task can be replaced and
/// every task cancelled when bluetoothd stops.
struct TaskBag {
    private var tasks: [String: (id: Int, task: Task<Void, Never>)] = [:]
    private var counter = 0

    /// A fresh identifier (also used to make one-off keys unique).
    mutating func nextID() -> Int {
        counter += 1
        return counter
    }

    /// Stores `task` under `key`, cancelling the task it replaces.
    mutating func set(_ key: String, id: Int, _ task: Task<Void, Never>) {
        tasks[key]?.task.cancel()
        tasks[key] = (id, task)
    }

    /// Forgets a task that has finished, unless another has taken its key since.
    mutating func finished(_ key: String, id: Int) {
        if tasks[key]?.id == id { tasks[key] = nil }
    }

    /// Whether the task of `key` is still the one with `id` (not replaced or cancelled).
    func isCurrent(_ key: String, id: Int) -> Bool { tasks[key]?.id == id }

    mutating func cancel(_ key: String) { tasks.removeValue(forKey: key)?.task.cancel() }

    mutating func cancel(prefix: String) {
        for key in tasks.keys where key.hasPrefix(prefix) { cancel(key) }
    }

    mutating func cancelAll() {
        for entry in tasks.values { entry.task.cancel() }
        tasks = [:]
    }
}
