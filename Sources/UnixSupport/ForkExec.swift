import CLinux

#if canImport(Glibc)
    import Glibc
#endif

/// Starts programs with fork and exec (CLinux's `clinux_spawn`): standard descriptors of
/// the caller's choosing, no other descriptor, default signal handling.
///
/// Not Foundation's `Process`: in Swift 6.3.1 its start-up scans `/proc/self/fd` and can
/// crash the process when another thread opens or closes descriptors meanwhile
/// (swift-corelibs-foundation PR 5472).
public enum ForkExec {
    /// What ties the child to this process.
    public struct Options: OptionSet, Sendable {
        /// The bits of `clinux_spawn`'s options.
        public let rawValue: Int32
        /// Options from `clinux_spawn`'s bits.
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// The kernel SIGKILLs the child when the calling *thread* ends (`PR_SET_PDEATHSIG`).
        public static let diesWithThread = Options(rawValue: Int32(clinux_spawn_dies_with_thread))
        /// The child leads a process group of its own, so one `kill(-pid, …)` reaches
        /// everything it starts.
        public static let ownProcessGroup = Options(rawValue: Int32(clinux_spawn_own_group))
    }

    /// Starts `path` with `arguments` (argv[0] is added) and returns its pid.
    ///
    /// - Parameters:
    ///   - stdin, stdout: the child's fd 0 and 1; stderr: its fd 2, or nil to share ours.
    ///   - blockedSignals: signals the child starts with blocked: they stay pending
    ///     instead of reaching it.
    public static func spawn(
        _ path: String, _ arguments: [String], environment: [String: String],
        stdin: Int32, stdout: Int32, stderr: Int32? = nil,
        blocking blockedSignals: [Int32] = [], options: Options = []
    ) throws(SystemError) -> Int32 {
        var blocked = sigset_t()
        sigemptyset(&blocked)
        for signal in blockedSignals { sigaddset(&blocked, signal) }
        let argv = ([path] + arguments).map { strdup($0) }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") }
        defer { (argv + envp).forEach { free($0) } }
        let fds = clinux_spawn_fds(stdin_fd: stdin, stdout_fd: stdout, stderr_fd: stderr ?? -1)
        var error: Int32 = 0
        let pid = clinux_spawn(path, argv + [nil], envp + [nil], fds, &blocked, options.rawValue, &error)
        guard pid > 0 else { throw SystemError("spawn(\(path))", code: error) }
        return pid
    }

    /// A pipe whose ends are closed on exec (a child gets one only as fd 0-2).
    public static func pipe() throws(SystemError) -> (read: Int32, write: Int32) {
        var fds: [Int32] = [0, 0]
        guard pipe2(&fds, O_CLOEXEC) == 0 else { throw .current("pipe") }
        return (fds[0], fds[1])
    }

    /// `/dev/null` opened for reading, closed on exec: a child's empty stdin.
    public static func openNull() throws(SystemError) -> Int32 {
        let fd = open("/dev/null", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw .current("open(/dev/null)") }
        return fd
    }
}
