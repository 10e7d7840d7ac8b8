public import Foundation

/// A child process for tests, stopped by ``stop()`` (SIGTERM, then SIGKILL after a grace period).
public final class ChildProcess: @unchecked Sendable {
    // @unchecked: `process` is only started once in `start` and then read;
    // stdout lines are handed over through an AsyncStream.
    private let process: Process
    private let lines: AsyncStream<String>
    private let exit: ExitLatch
    /// Where stderr (and stdout unless captured) goes.
    public let logFile: URL

    private init(process: Process, lines: AsyncStream<String>, exit: ExitLatch, logFile: URL) {
        self.process = process
        self.exit = exit
        self.lines = lines
        self.logFile = logFile
    }

    /// Starts `executable` with `arguments`; stderr goes to `logFile`, and stdout too
    /// unless `captureStdout` (then read it with ``stdoutLines``) or `stdoutFile` is given.
    public static func start(
        _ executable: String, _ arguments: [String], environment: [String: String]? = nil,
        logFile: URL, captureStdout: Bool = false, stdoutFile: URL? = nil
    ) throws -> ChildProcess {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
        let log = try FileHandle(forWritingTo: logFile)
        process.standardError = log
        let (lines, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(10_000))
        var stdoutPipe: Pipe?
        if captureStdout {
            stdoutPipe = Pipe()
            process.standardOutput = stdoutPipe
        } else if let stdoutFile {
            _ = FileManager.default.createFile(atPath: stdoutFile.path, contents: nil)
            process.standardOutput = try FileHandle(forWritingTo: stdoutFile)
            continuation.finish()
        } else {
            process.standardOutput = log
            continuation.finish()
        }
        process.standardInput = FileHandle.nullDevice
        let exit = ExitLatch()
        process.terminationHandler = { finished in
            let status = finished.terminationStatus
            Task { await exit.open(status) }
        }
        try process.run()
        if let stdoutPipe { readLines(stdoutPipe.fileHandleForReading, into: LineSplitter(continuation)) }
        return ChildProcess(process: process, lines: lines, exit: exit, logFile: logFile)
    }

    /// Reads `handle` to its end on a thread of its own, with blocking `read`s.
    ///
    /// Not `readabilityHandler`: its dispatch source can outlive the descriptor, which
    /// `FileHandle` closes when released, and libdispatch then receives events for
    /// whatever reuses the number (seen as a crash in `_dispatch_event_loop_drain`).
    private static func readLines(_ handle: FileHandle, into splitter: LineSplitter) {
        Thread.detachNewThread {
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = read(handle.fileDescriptor, &buffer, buffer.count)
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                splitter.feed(Data(buffer[0..<count]))
            }
            splitter.finish()
            withExtendedLifetime(handle) {}  // the descriptor stays open until the last read
        }
    }

    /// The process id.
    public var pid: Int32 { process.processIdentifier }
    /// Whether the process is still running.
    public var isRunning: Bool { process.isRunning }
    /// The exit status, once it has exited.
    public var exitStatus: Int32? { process.isRunning ? nil : process.terminationStatus }

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

    /// Sends a signal.
    public func signal(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Waits for the process to exit, at most `timeout`; returns its status or nil.
    public func waitForExit(timeout: Duration) async -> Int32? {
        let exit = exit
        return try? await withTimeout(timeout) { await exit.wait() }
    }

    /// Stops the process: `signal` (SIGTERM), then SIGKILL after `grace` to its whole
    /// process group.
    ///
    /// Foundation starts the child as a process group leader and what it spawns stays in
    /// that group (`blectld --mock` runs a bus and a mock), so the SIGKILL leaves no
    /// orphans behind a child too slow to stop them itself (as under ThreadSanitizer). The
    /// child was still running a moment before, so the group id is still its own.
    public func stop(signal first: Int32 = SIGTERM, grace: Duration = .seconds(3)) async {
        guard process.isRunning else { return }
        signal(first)
        if await waitForExit(timeout: grace) == nil {
            kill(-process.processIdentifier, SIGKILL)
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
    // @unchecked: one reader thread feeds it; `lock` guards anyway.
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
