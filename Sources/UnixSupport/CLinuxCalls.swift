// Calls through the CLinux shim. They live apart from files whose public API uses Glibc's
// types: an `import CLinux` there would make those types (which it re-exports) internal.
import CLinux
#if canImport(Glibc)
    import Glibc
#endif

/// Gives the C heap's free memory back to the kernel.
public enum HeapTrim {
    /// Releases the free pages of every malloc arena (`malloc_trim(0)`); returns whether
    /// any memory went back.
    ///
    /// glibc keeps freed memory for reuse: after a burst of large buffers (clients'
    /// queues, say) the process would stay that large until the next burst. The cost is
    /// a walk over the free lists, so call it after such a burst, not per event.
    @discardableResult
    public static func releaseFreeMemory() -> Bool {
        malloc_trim(0) == 1
    }

    /// Makes blocks of `bytes` and more mapped for themselves and unmapped when freed
    /// (`mallopt(M_MMAP_THRESHOLD)`), for good.
    ///
    /// glibc's default raises that threshold to the largest block freed so far (up to
    /// 32 MB), after which such blocks come from the heap and stay resident once freed: a
    /// burst's arrays (readings on their way to the history) kept blectld tens of MB larger.
    public static func mapLargeBlocks(from bytes: Int32) {
        _ = mallopt(M_MMAP_THRESHOLD, bytes)
    }
}

/// `SO_PEERCRED` of a connected Unix socket, for ``UnixSocket/peerCredentials(_:)``.
func readPeerCredentials(_ fd: Int32) throws(SystemError) -> PeerCredentials {
    var credentials = clinux_ucred()
    var length = socklen_t(MemoryLayout<clinux_ucred>.size)
    _ = try valueOrErrno("getsockopt(SO_PEERCRED)", getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &credentials, &length))
    return PeerCredentials(pid: credentials.pid, uid: credentials.uid, gid: credentials.gid)
}
