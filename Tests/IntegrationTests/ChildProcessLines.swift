import Foundation
import TestSupport

/// A long-running process (such as `blectl watch --json`) whose stdout lines are JSON objects.
final class ChildProcessLines: Sendable {
    private let process: ChildProcess
    private let log: URL

    private init(process: ChildProcess, log: URL) {
        self.process = process
        self.log = log
    }

    static func start(_ path: String, _ arguments: [String], environment: [String: String]? = nil) throws
        -> ChildProcessLines
    {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("blectl-watch-\(UUID().uuidString)")
        return ChildProcessLines(
            process: try ChildProcess.start(
                path, arguments, environment: environment, logFile: log, captureStdout: true),
            log: log)
    }

    /// The first line (as text) that `match` accepts, within `timeout`.
    func firstText(within timeout: Duration = .seconds(20), _ match: @escaping @Sendable (String) -> Bool)
        async throws -> String
    {
        guard let line = try await process.firstLine(timeout: timeout, where: match) else {
            throw TestSupportError("no matching line")
        }
        return line
    }

    /// What the process wrote to stderr so far.
    func errors() -> String { process.log() }

    /// The process, for signals.
    var pid: Int32 { process.pid }

    /// Waits for the process to exit, at most `timeout`; returns its status or nil.
    func waitForExit(timeout: Duration = .seconds(10)) async -> Int32? {
        await process.waitForExit(timeout: timeout)
    }

    /// The first JSON object line that `match` accepts, within `timeout`.
    func first(
        within timeout: Duration = .seconds(20), _ match: @escaping @Sendable ([String: Any]) -> Bool
    ) async throws -> [String: Any] {
        let line = try await process.firstLine(timeout: timeout) { line in
            guard let object = Self.parse(line) else { return false }
            return match(object)
        }
        guard let line, let object = Self.parse(line) else { throw TestSupportError("no matching line") }
        return object
    }

    static func parse(_ line: String) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
    }

    func stop() {
        let process = process
        let log = log
        Task {
            await process.stop()
            try? FileManager.default.removeItem(at: log)
        }
    }
}
