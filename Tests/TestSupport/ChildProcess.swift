public import Foundation

import ConcurrencySupport
import UnixSupport

/// A child process for tests, stopped by ``stop()`` (SIGTERM, then SIGKILL after a grace period).
///
/// Started with UnixSupport's ``ForkExec``, not Foundation's `Process`, which in Swift 6.3.1
/// can crash the whole test process while other tests open and close descriptors.
public final class ChildProcess: Sendable {
    /// The process id.
    public let pid: Int32
    private let lines: AsyncStream<String>
    private let exit: ExitLatch
    /// The exit status once reaped: the exit code, or the number of the signal that ended it.
    private let reaped = Locked<Int32?>(nil)
    /// Where stderr (and stdout unless captured) goes.
    public let logFile: URL

    private init(pid: Int32, lines: AsyncStream<String>, exit: ExitLatch, logFile: URL) {
        self.pid = pid
        self.exit = exit
        self.lines = lines
        self.logFile = logFile
    }

    /// Starts `executable` with `arguments`; stderr goes to `logFile`, and stdout too
    /// unless `captureStdout` (then read it with ``stdoutLines``) or `stdoutFile` is given.
    /// `environment` nil passes ours on.
    public static func start(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        logFile: URL, captureStdout: Bool = false, stdoutFile: URL? = nil
    ) throws -> ChildProcess {
        let log = try openForWriting(logFile.path)
        defer { close(log) }
        let input = try ForkExec.openNull()
        defer { close(input) }
        let (lines, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(10_000))
        var output = (read: Int32(-1), write: log)
        if captureStdout {
            output = try ForkExec.pipe()
        } else {
            continuation.finish()
            if let stdoutFile { output.write = try openForWriting(stdoutFile.path) }
        }
        defer { if output.write != log { close(output.write) } }
        let pid: Int32
        do {
            pid = try ForkExec.spawn(
                executable, arguments, environment: environment ?? ProcessEnvironment.current,
                stdin: input, stdout: output.write, stderr: log, options: .ownProcessGroup)
        } catch {
            if output.read >= 0 { close(output.read) }
            throw error
        }
        let child = ChildProcess(pid: pid, lines: lines, exit: ExitLatch(), logFile: logFile)
        child.reapOnExit()
        if output.read >= 0 { readLines(output.read, into: LineSplitter(continuation)) }
        return child
    }

    private static func openForWriting(_ path: String) throws -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw TestSupportError("\(path): \(String(cString: strerror(errno)))") }
        return fd
    }

    /// Waits for the child on a thread of its own, and records how it ended.
    private func reapOnExit() {
        Thread.detachNewThread { [pid, reaped, exit] in
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
            let code = status & 0x7f == 0 ? (status >> 8) & 0xff : status & 0x7f  // WEXITSTATUS, WTERMSIG
            reaped.withLock { $0 = code }
            Task { await exit.open(code) }
        }
    }

    /// Reads `fd` to its end on a thread of its own, with blocking `read`s, then closes it.
    ///
    /// Not a dispatch source: one can outlive the descriptor and then receive events for
    /// whatever reuses the number (seen as a crash in `_dispatch_event_loop_drain`).
    private static func readLines(_ fd: Int32, into splitter: LineSplitter) {
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(fd, &buffer, buffer.count)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                splitter.feed(Data(buffer[0..<count]))
            }
            splitter.finish()
            close(fd)
        }
    }

    /// Whether the process is still running (not yet reaped).
    public var isRunning: Bool { exitStatus == nil }
    /// The exit status, once it has exited: its exit code, or the signal that ended it.
    public var exitStatus: Int32? { reaped.withLock { $0 } }

    /// Lines the process writes to stdout (when captured).
    public var stdoutLines: AsyncStream<String> { lines }

    /// The first stdout line, or nil when none comes within `timeout`.
    public func firstStdoutLine(timeout: Duration) async throws -> String? {
        try await firstLine(timeout: timeout) { _ in true }
    }

    /// The first stdout line satisfying `predicate` within `timeout`.
    public func firstLine(timeout: Duration, where predicate: @escaping @Sendable (String) -> Bool) async throws
        -> String?
    {
        let stream = lines
        return try await withTimeout(timeout) {
            for await line in stream where predicate(line) { return line }
            return nil
        }
    }

    /// Sends a signal, unless the process was reaped (its pid may be someone else's now).
    public func signal(_ signal: Int32) {
        reaped.withLock { if $0 == nil { kill(pid, signal) } }
    }

    /// Waits for the process to exit, at most `timeout`; returns its status or nil.
    public func waitForExit(timeout: Duration) async -> Int32? {
        let exit = exit
        return try? await withTimeout(timeout) { await exit.wait() }
    }

    /// Stops the process: `signal` (SIGTERM), then SIGKILL after `grace` to its whole
    /// process group.
    ///
    /// The child leads a process group of its own and what it spawns stays in that group
    /// (`blectld --mock` runs a bus and a mock), so the SIGKILL leaves no orphans behind a
    /// child too slow to stop them itself (as under ThreadSanitizer). The child is not
    /// reaped yet, so the group id is still its own.
    public func stop(signal first: Int32 = SIGTERM, grace: Duration = .seconds(3)) async {
        guard isRunning else { return }
        signal(first)
        if await waitForExit(timeout: grace) == nil {
            kill(-pid, SIGKILL)
            _ = await waitForExit(timeout: .seconds(3))
        }
    }

    /// What the process wrote to its log so far.
    public func log() -> String { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }
}

/// Wakes everyone waiting for a process's exit status.
private actor ExitLatch {
    private var status: Int32?
    private var waiters: [CheckedContinuation<Int32, Never>] = []

    func open(_ status: Int32) {
        self.status = status
        waiters.forEach { $0.resume(returning: status) }
        waiters = []
    }

    func wait() async -> Int32 {
        if let status { return status }
        return await withCheckedContinuation { waiters.append($0) }
    }
}

/// Splits a byte stream into lines.
private final class LineSplitter: @unchecked Sendable {
    // @unchecked: `buffer` is only touched under `lock`.
    private let lock = NSLock()
    private var buffer = Data()
    private let continuation: AsyncStream<String>.Continuation

    init(_ continuation: AsyncStream<String>.Continuation) { self.continuation = continuation }

    func feed(_ data: Data) {
        lock.withLock {
            buffer.append(data)
            while let newline = buffer.firstIndex(of: 0x0A) {
                let line = buffer[buffer.startIndex..<newline]
                continuation.yield(String(decoding: line, as: UTF8.self))
                buffer.removeSubrange(buffer.startIndex...newline)
            }
        }
    }

    func finish() { continuation.finish() }
}

/// Runs `body`, throwing ``TestSupportError`` when it takes longer than `timeout`
/// (``Duration/scaled``).
///
/// Returns at the deadline even when `body` ignores cancellation (it is
/// cancelled and left to finish on its own).
public func withTimeout<T: Sendable>(
    _ timeout: Duration, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let once = ResumeOnce<T>()
    return try await withCheckedThrowingContinuation { continuation in
        once.set(continuation)
        let work = Task {
            do { once.resume(.success(try await body())) } catch { once.resume(.failure(error)) }
        }
        Task {
            try? await Task.sleep(for: timeout.scaled)
            if once.resume(.failure(TestSupportError("timed out after \(timeout.scaled)"))) { work.cancel() }
        }
    }
}

/// Resumes a continuation at most once, from any thread.
private final class ResumeOnce<T: Sendable>: @unchecked Sendable {
    // @unchecked: all state is guarded by `lock`.
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, any Error>?
    private var pending: Result<T, any Error>?

    func set(_ continuation: CheckedContinuation<T, any Error>) {
        lock.withLock {
            if let pending { continuation.resume(with: pending) } else { self.continuation = continuation }
        }
    }

    @discardableResult
    func resume(_ result: Result<T, any Error>) -> Bool {
        lock.withLock {
            if let continuation {
                self.continuation = nil
                pending = .failure(CancellationError())
                continuation.resume(with: result)
                return true
            }
            guard pending == nil else { return false }
            pending = result
            return true
        }
    }
}
