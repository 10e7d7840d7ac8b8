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
