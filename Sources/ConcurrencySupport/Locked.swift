#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A value behind a pthread mutex, for state shared with code outside an actor
/// (C callbacks, continuation bodies).
///
/// Not `Synchronization.Mutex`: on Linux that locks with raw futexes, which
/// ThreadSanitizer does not see, so every access under it reports as a race
/// (`make test-tsan`). A pthread mutex is understood.
public final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is only read or written between `pthread_mutex_lock` and
    // `pthread_mutex_unlock` of `mutex`, which lives as long as the object.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    /// Creates the lock around `value`.
    public init(_ value: Value) {
        self.value = value
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
