#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A unix file descriptor carried in a D-Bus message (type `h`).
///
/// The object owns its descriptor and closes it when the last reference goes,
/// so descriptors received from a peer (BlueZ's `AcquireNotify`) never leak.
public final class UnixFileDescriptor: Sendable, Equatable {
    /// The descriptor number; valid while this object is alive.
    public let rawValue: Int32

    /// Takes ownership of `rawValue`: it is closed when this object is released.
    public init(taking rawValue: Int32) { self.rawValue = rawValue }

    /// Duplicates `rawValue` (close-on-exec); the caller keeps its own descriptor.
    public convenience init(duplicating rawValue: Int32) throws {
        let copy = fcntl(rawValue, F_DUPFD_CLOEXEC, 0)
        guard copy >= 0 else {
            throw DBusEncodingError("cannot duplicate file descriptor \(rawValue): errno \(errno)")
        }
        self.init(taking: copy)
    }

    deinit { close(rawValue) }

    /// Descriptors are equal when they refer to the same open file (same device and inode).
    public static func == (lhs: UnixFileDescriptor, rhs: UnixFileDescriptor) -> Bool {
        if lhs === rhs { return true }
        var a = stat()
        var b = stat()
        guard fstat(lhs.rawValue, &a) == 0, fstat(rhs.rawValue, &b) == 0 else { return false }
        return a.st_dev == b.st_dev && a.st_ino == b.st_ino
    }
}
