import Glibc

/// Runs an async entry point from synchronous `main`, parking the main thread until it ends.
///
/// A top-level `await` makes Swift's async main end the main thread with `dispatch_main()`,
/// whose `pthread_exit` unwinds the thread's stack. The unwinder searches the executable's
/// unwind tables, and the pages it touches (about 0.5 MB in release blectld) stay resident
/// for the life of the process. Parking the thread instead costs nothing.
public enum BlockingMain {
    /// Runs `operation` as a detached task and returns its result once it finishes.
    ///
    /// Call it from the main thread only: nothing may need the main actor meanwhile.
    public static func run(_ operation: @escaping @Sendable () async -> Int32) -> Int32 {
        let result = ResultSlot()
        Task.detached { result.fill(await operation()) }
        return result.wait()
    }
}

/// One `Int32` handed from a task to a thread parked on a semaphore.
private final class ResultSlot: @unchecked Sendable {
    // @unchecked: `value` is written once before `sem_post` and read after `sem_wait`
    // returns, and the semaphore orders the two.
    private let semaphore = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
    private var value: Int32 = 0

    init() { sem_init(semaphore, 0, 0) }

    deinit {
        sem_destroy(semaphore)
        semaphore.deallocate()
    }

    func fill(_ value: Int32) {
        self.value = value
        sem_post(semaphore)
    }

    func wait() -> Int32 {
        // Signal handlers (libdispatch's sources) may run on this thread: EINTR is not an end.
        while sem_wait(semaphore) != 0 && errno == EINTR {}
        return value
    }
}
