#if canImport(Glibc)
    public import Glibc
#endif

/// The outcome of one non-blocking read or write on a socket.
public enum IOResult: Equatable, Sendable {
    /// This many bytes moved (always more than zero).
    case transferred(Int)
    /// The call would block: wait for readiness.
    case wouldBlock
    /// The peer closed its end (a read returned 0).
    case endOfFile
    /// The call failed; for a socket this usually means the peer is gone.
    case failed(SystemError)
}

/// The outcome of one non-blocking `accept`.
public enum AcceptResult: Equatable, Sendable {
    /// A new connection, already non-blocking and close-on-exec.
    case accepted(Int32)
    /// No connection is pending.
    case noneWaiting
    /// `accept` failed, e.g. `EMFILE` when out of descriptors.
    case failed(SystemError)
}

/// Who is at the other end of a Unix socket, as the kernel recorded it when the peer
/// connected (`SO_PEERCRED`): it cannot be forged by what the peer sends.
public struct PeerCredentials: Equatable, Sendable {
    /// The connecting process.
    public var pid: pid_t
    /// Its effective user.
    public var uid: uid_t
    /// Its effective group.
    public var gid: gid_t

    /// Credentials from their parts.
    public init(pid: pid_t, uid: uid_t, gid: gid_t) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
    }
}

/// Thin wrappers over the Unix-domain socket calls: one function per call, errors as
/// ``SystemError``, every descriptor close-on-exec.
public enum UnixSocket {
    /// The longest path that fits `sockaddr_un.sun_path` with its terminating NUL.
    public static let maxPathLength = MemoryLayout.size(ofValue: sockaddr_un().sun_path) - 1

    /// Calls `body` with a `sockaddr_un` for `path` and its length.
    ///
    /// A path starting with `@` names a Linux abstract socket: `sun_path` starts with a
    /// NUL and the length covers exactly the name's bytes, no terminator.
    public static func withAddress<R>(
        _ path: String,
        _ body: (UnsafePointer<sockaddr>, socklen_t) throws(SystemError) -> R
    ) throws(SystemError) -> R {
        var bytes = Array(path.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        guard !bytes.isEmpty, bytes.count <= maxPathLength, abstract || !bytes.contains(0) else {
            throw SystemError("socket address \(path)", code: ENAMETOOLONG)
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        // `sun_path` imports as a tuple of CChar; write through its raw bytes.
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
        }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \.sun_path)!
        let length = socklen_t(pathOffset + bytes.count + (abstract ? 0 : 1))
        return try withUnsafePointer(to: &address) { pointer throws(SystemError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic throws(SystemError) in
                try body(generic, length)
            }
        }
    }

    /// Creates a close-on-exec socket of `type` (`SOCK_STREAM` or `SOCK_DGRAM`), optionally non-blocking.
    public static func makeSocket(type: __socket_type, nonBlocking: Bool) throws(SystemError) -> Int32 {
        var flags = Int32(type.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        if nonBlocking { flags |= Int32(SOCK_NONBLOCK.rawValue) }
        return try valueOrErrno("socket", socket(AF_UNIX, flags, 0))
    }

    /// Binds a non-blocking listening stream socket at `path` with `mode` and optional group.
    ///
    /// A stale socket file left by a dead daemon is replaced; a live one (something
    /// accepts connections there) is an `EADDRINUSE` error, and so is a path that exists
    /// but is not a socket. The parent directory is created (0755) when missing, for runs
    /// outside systemd, whose `RuntimeDirectory=` normally provides it.
    public static func listen(
        path: String,
        mode: mode_t = 0o660,
        groupID: gid_t? = nil,
        backlog: Int32 = SOMAXCONN
    ) throws(SystemError) -> Int32 {
        try makeParentDirectory(of: path)
        let fd = try makeSocket(type: SOCK_STREAM, nonBlocking: true)
        do {
            try bindReplacingStale(fd, path: path)
            if !path.hasPrefix("@") {
                // bind(2) applies the umask; set the mode the administrator asked for.
                _ = try valueOrErrno("chmod(\(path))", chmod(path, mode))
                if let groupID {
                    _ = try valueOrErrno("chown(\(path))", chown(path, uid_t.max, groupID))
                }
            }
            _ = try valueOrErrno("listen(\(path))", Glibc.listen(fd, backlog))
            return fd
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    private static func bindReplacingStale(_ fd: Int32, path: String) throws(SystemError) {
        let bindResult = try withAddress(path) { address, length in Glibc.bind(fd, address, length) }
        if bindResult == 0 { return }
        let bindError = SystemError.current("bind(\(path))")
        guard bindError.code == EADDRINUSE, !path.hasPrefix("@"), isStaleSocket(path) else {
            throw bindError
        }
        unlink(path)
        _ = try valueOrErrno(
            "bind(\(path))",
            try withAddress(path) { address, length in Glibc.bind(fd, address, length) }
        )
    }

    /// Whether `path` is a socket file that nobody accepts connections on.
    private static func isStaleSocket(_ path: String) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFSOCK else { return false }
        return connectionProbe(path) == ECONNREFUSED
    }

    /// Whether something accepts connections on the stream socket at `path`: a live
    /// daemon, even one whose backlog is full.
    public static func acceptsConnections(_ path: String) -> Bool {
        let result = connectionProbe(path)
        return result == 0 || result == EAGAIN
    }

    /// Connects to `path` and hangs up: 0, or the `errno` of the failed `connect`.
    private static func connectionProbe(_ path: String) -> Int32 {
        // Non-blocking: a live daemon with a full backlog must not block us (EAGAIN).
        do {
            let probe = try makeSocket(type: SOCK_STREAM, nonBlocking: true)
            defer { Glibc.close(probe) }
            let result = try withAddress(path) { address, length in
                retryingEINTR { Glibc.connect(probe, address, length) }
            }
            return result == 0 ? 0 : errno
        } catch {
            return error.code
        }
    }

    /// Makes the socket's directory if it is missing; a failure keeps its cause (a user
    /// who may not create `/run/blectl` hears exactly that, not `bind: No such file`).
    private static func makeParentDirectory(of path: String) throws(SystemError) {
        guard path.hasPrefix("/"), let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        let directory = String(path[..<slash])
        guard mkdir(directory, 0o755) != 0 else { return }
        let error = SystemError.current("mkdir(\(directory))")
        guard error.code != EEXIST else { return }  // the common, harmless case
        throw error
    }

    /// Connects a blocking, close-on-exec stream socket to `path`.
    public static func connect(path: String) throws(SystemError) -> Int32 {
        let fd = try makeSocket(type: SOCK_STREAM, nonBlocking: false)
        let result = try withAddress(path) { address, length in
            retryingEINTR { Glibc.connect(fd, address, length) }
        }
        if result != 0 {
            let error = SystemError.current("connect(\(path))")
            Glibc.close(fd)
            throw error
        }
        return fd
    }

    /// Accepts one pending connection as a non-blocking, close-on-exec descriptor.
    ///
    /// `accept4` would set both flags atomically but Swift cannot import it without a C
    /// shim; this daemon never forks, so the window between `accept` and `fcntl` cannot
    /// leak the descriptor into a child.
    public static func accept(_ listener: Int32) -> AcceptResult {
        let fd = retryingEINTR { Glibc.accept(listener, nil, nil) }
        if fd < 0 {
            let error = SystemError.current("accept")
            return error.code == EAGAIN || error.code == EWOULDBLOCK ? .noneWaiting : .failed(error)
        }
        do {
            try setCloseOnExec(fd)
            try setNonBlocking(fd)
            return .accepted(fd)
        } catch {
            Glibc.close(fd)
            return .failed(error)
        }
    }

    /// The credentials of the process at the other end of the connected socket `fd`.
    public static func peerCredentials(_ fd: Int32) throws(SystemError) -> PeerCredentials {
        try readPeerCredentials(fd)
    }

    /// Sets `O_NONBLOCK` on `fd`.
    public static func setNonBlocking(_ fd: Int32) throws(SystemError) {
        let flags = try valueOrErrno("fcntl(F_GETFL)", fcntl(fd, F_GETFL))
        _ = try valueOrErrno("fcntl(F_SETFL)", fcntl(fd, F_SETFL, flags | O_NONBLOCK))
    }

    /// Sets `FD_CLOEXEC` on `fd`.
    public static func setCloseOnExec(_ fd: Int32) throws(SystemError) {
        let flags = try valueOrErrno("fcntl(F_GETFD)", fcntl(fd, F_GETFD))
        _ = try valueOrErrno("fcntl(F_SETFD)", fcntl(fd, F_SETFD, flags | FD_CLOEXEC))
    }

    /// Sets a receive timeout (`SO_RCVTIMEO`) on a blocking socket; reads then fail with `EAGAIN`.
    public static func setReceiveTimeout(_ fd: Int32, _ duration: Duration) throws(SystemError) {
        let (seconds, attoseconds) = duration.components
        var value = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        _ = try valueOrErrno(
            "setsockopt(SO_RCVTIMEO)",
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, socklen_t(MemoryLayout<timeval>.size))
        )
    }

    /// Sends bytes without ever raising `SIGPIPE` (`MSG_NOSIGNAL`).
    public static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> IOResult {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return .transferred(0) }
        let sent = retryingEINTR { Glibc.send(fd, base, bytes.count, Int32(MSG_NOSIGNAL)) }
        return ioResult(sent, "send")
    }

    /// Receives up to `buffer.count` bytes.
    public static func receive(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        let received = retryingEINTR { recv(fd, buffer.baseAddress, buffer.count, 0) }
        if received == 0 { return .endOfFile }
        return ioResult(received, "recv")
    }

    private static func ioResult(_ count: Int, _ operation: String) -> IOResult {
        if count >= 0 { return .transferred(count) }
        let error = SystemError.current(operation)
        return error.code == EAGAIN || error.code == EWOULDBLOCK ? .wouldBlock : .failed(error)
    }

    /// Whether `fd` is a listening `AF_UNIX` stream socket, as `sd_is_socket_unix` checks.
    public static func isListeningStreamSocket(_ fd: Int32) -> Bool {
        func option(_ name: Int32) -> Int32? {
            var value: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            return getsockopt(fd, SOL_SOCKET, name, &value, &length) == 0 ? value : nil
        }
        var address = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return named == 0 && Int32(address.ss_family) == AF_UNIX
            && option(SO_TYPE) == Int32(SOCK_STREAM.rawValue) && option(SO_ACCEPTCONN) == 1
    }

    /// Looks a group name (or a numeric id) up in the group database.
    public static func groupID(named name: String) throws(SystemError) -> gid_t {
        if let number = gid_t(name) { return number }
        var group = group()
        var result: UnsafeMutablePointer<group>?
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        let status = getgrnam_r(name, &group, &buffer, buffer.count, &result)
        guard status == 0, result != nil else {
            throw SystemError("unknown group \(name)", code: status == 0 ? ENOENT : status)
        }
        return group.gr_gid
    }
}
