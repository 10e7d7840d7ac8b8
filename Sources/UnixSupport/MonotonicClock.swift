#if canImport(Glibc)
    import Glibc
#endif

/// `CLOCK_MONOTONIC`: the clock the event loop's timers run on (ConcurrencySupport, hence
/// `package`), and systemd's `MONOTONIC_USEC`.
package enum MonotonicClock {
    /// Nanoseconds since boot (not counting suspend).
    package static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }
}
