import CLinux

#if canImport(Glibc)
    import Glibc
#endif

/// A child process that cannot outlive this one, whose stdout is a pipe we read.
///
/// Started with ``ForkExec`` rather than `posix_spawn`, for
/// `PR_SET_PDEATHSIG`: the kernel SIGKILLs the child when its parent dies, even by
/// SIGKILL, when nothing in the parent gets a chance to stop it. That signal follows the
/// *thread* that forked, not the process, so ``spawn(_:_:lifeline:blocking:)`` runs on
/// the main thread only: blectld's main thread lives as long as the process (BlockingMain
/// parks it), whereas a worker thread of Swift's pool ends after 5 s without work and would
/// take the child with it. A pipe the child watches (the `lifeline`) cannot cover
/// dbus-daemon, which watches nothing of ours, so the kernel does it for every child.
///
/// The child gets only fds 0-2 (its stderr is ours), default signal handling, and our
/// environment without the variables systemd addresses to this process alone
/// (``ProcessEnvironment/forChildren(_:)``).
public final class SpawnedProcess: Sendable {
    /// The child's process id.
    public let pid: Int32  // pid_t; spelled out, as CLinux re-exports the typedef internally
    /// The executable's file name, for messages.
    public let name: String
    private let stdout: Int32
    /// The write end of the child's stdin when it is a lifeline, else -1.
    private let lifeline: Int32

    private init(pid: Int32, name: String, stdout: Int32, lifeline: Int32) {
        self.pid = pid
        self.name = name
        self.stdout = stdout
        self.lifeline = lifeline
    }

    deinit { close(stdout) }

    /// Starts `path` with `arguments` (argv[0] is added).
    ///
    /// - Parameters:
    ///   - lifeline: the child's stdin is a pipe nobody writes to, which reaches end of
    ///     file when ``reap(within:)`` closes it or this process ends; otherwise `/dev/null`.
    ///   - blockedSignals: signals the child starts with blocked: they stay pending
    ///     instead of reaching it.
    public static func spawn(
        _ path: String, _ arguments: [String], lifeline: Bool = false, blocking blockedSignals: [Int32] = []
    ) throws(SystemError) -> SpawnedProcess {
        precondition(
            clinux_on_main_thread() != 0, "PR_SET_PDEATHSIG follows the forking thread: spawn on the main thread")
        let output = try ForkExec.pipe()
        defer { close(output.write) }
        let input = lifeline ? try ForkExec.pipe() : (read: try ForkExec.openNull(), write: -1)
        defer { close(input.read) }
        let pid: Int32
        do {
            pid = try ForkExec.spawn(
                path, arguments, environment: ProcessEnvironment.forChildren(), stdin: input.read,
                stdout: output.write, blocking: blockedSignals, options: .diesWithThread)
        } catch {
            close(output.read)
            if input.write >= 0 { close(input.write) }
            throw error
        }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return SpawnedProcess(pid: pid, name: name, stdout: output.read, lifeline: input.write)
    }

    /// Reads one line from the child's stdout, waiting at most `timeout`.
    /// This is start-up only: one bounded wait for the child's readiness line.
    public func readLine(timeout: Duration) throws(SystemError) -> String {
        var line: [UInt8] = []
        let deadline = ContinuousClock.now + timeout
        while true {
            let left = deadline - .now
            guard left > .zero else { throw SystemError("\(name): no readiness line", code: ETIMEDOUT) }
            var poller = pollfd(fd: stdout, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Self.milliseconds(left))
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { continue }
            var byte: UInt8 = 0
            let count = read(stdout, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count == 1 else { throw SystemError("\(name) exited before it was ready", code: EPIPE) }
            if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
    }

    /// Closes the lifeline (the child's cue to stop), waits up to `grace` for the child to
    /// exit, then SIGKILLs it; reaps it either way. A zero grace kills at once. Call it once.
    public func reap(within grace: Duration) {
        if lifeline >= 0 { close(lifeline) }
        if grace <= .zero || !exits(within: grace) { kill(pid, SIGKILL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    }

    /// Whether the child exits within `timeout`: a poll on its pidfd, which becomes
    /// readable at its exit. False when the kernel has no pidfds (before Linux 5.3).
    private func exits(within timeout: Duration) -> Bool {
        let pidfd = clinux_pidfd_open(pid)
        guard pidfd >= 0 else { return false }
        defer { close(pidfd) }
        var poller = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
        let deadline = ContinuousClock.now + timeout
        while true {
            let ready = poll(&poller, 1, Self.milliseconds(deadline - .now))
            if ready < 0, errno == EINTR { continue }
            return ready > 0
        }
    }

    private static func milliseconds(_ duration: Duration) -> Int32 {
        guard duration > .zero else { return 0 }
        let (seconds, attoseconds) = duration.components
        return Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
    }
}
