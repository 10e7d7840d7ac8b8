import Glibc
import UnixSupport

/// A child process started with `posix_spawn`, whose stdout is a pipe we read.
///
/// Used by `--mock` for the private `dbus-daemon` and `blectl-mock`. Its
/// stderr is ours, so its logs land in the daemon's journal.
final class ChildProcess: Sendable {
    let pid: pid_t
    let name: String
    private let stdout: Int32

    private init(pid: pid_t, name: String, stdout: Int32) {
        self.pid = pid
        self.name = name
        self.stdout = stdout
    }

    deinit { close(stdout) }

    /// Starts `path` with `arguments` (argv[0] is added).
    static func spawn(_ path: String, _ arguments: [String]) throws(SystemError) -> ChildProcess {
        var pipeFDs: [Int32] = [0, 0]
        guard pipe(&pipeFDs) == 0 else { throw .current("pipe") }
        // Our end must not leak into the child (the child gets its end as fd 1).
        _ = fcntl(pipeFDs[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(pipeFDs[1], F_SETFD, FD_CLOEXEC)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 1)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let argv = ([path] + arguments).map { strdup($0) }
        defer { argv.forEach { free($0) } }
        // The child starts with default signal handling and nothing blocked: our
        // SIGTERM/SIGINT/SIGHUP are ignored (dispatch sources handle them), and an
        // ignored disposition would otherwise be inherited.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, &attributes, argv + [nil], environ)
        close(pipeFDs[1])
        guard result == 0 else {
            close(pipeFDs[0])
            throw SystemError("posix_spawn(\(path))", code: result)
        }
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return ChildProcess(pid: pid, name: name, stdout: pipeFDs[0])
    }

    /// Reads one line from the child's stdout, waiting at most `timeout`.
    /// This is start-up only: one bounded wait for the child's readiness line.
    func readLine(timeout: Duration) throws(SystemError) -> String {
        var line: [UInt8] = []
        let deadline = ContinuousClock.now + timeout
        while true {
            let left = deadline - .now
            guard left > .zero else { throw SystemError("\(name): no readiness line", code: ETIMEDOUT) }
            var poller = pollfd(fd: stdout, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, Int32(left.components.seconds * 1000 + 1))
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

    /// SIGTERM, then SIGKILL when the child is still there after `grace`; reaps it.
    func stop(grace: Duration = .seconds(3)) {
        kill(pid, SIGTERM)
        let deadline = ContinuousClock.now + grace
        var status: Int32 = 0
        // A bounded wait at shutdown; nothing else runs meanwhile.
        while waitpid(pid, &status, WNOHANG) == 0 {
            guard ContinuousClock.now < deadline else {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                return
            }
            usleep(10_000)
        }
    }
}
