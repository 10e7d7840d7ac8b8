import Foundation
import TestSupport

/// What /proc says about other processes.
extension ProcessInfo {
    /// The pids of `pid`'s children (every thread's).
    static func children(of pid: Int32) -> [Int32] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.flatMap { task in
            ((try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? "")
                .split(separator: " ").compactMap { Int32($0) }
        }
    }

    /// A process's threads: their ids and names (`comm`).
    static func threads(of pid: Int32) -> [Int32: String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.reduce(into: [:]) { threads, task in
            guard let tid = Int32(task),
                let name = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8)
            else { return }
            threads[tid] = name.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// A process's command line, its arguments joined by spaces.
    static func command(of pid: Int32) -> String {
        fields(of: pid, "cmdline").joined(separator: " ")
    }

    /// A process's environment variables' names.
    static func environmentNames(of pid: Int32) -> Set<String> {
        Set(fields(of: pid, "environ").compactMap { $0.split(separator: "=", maxSplits: 1).first.map(String.init) })
    }

    /// Whether `pid` runs: it exists and is not a zombie waiting for its new parent to reap it.
    static func isAlive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let state = stat.split(separator: ")").last?.split(separator: " ").first
        else { return false }
        return state != "Z" && state != "X"
    }

    /// Waits until none of `pids` is alive; false when some still is after `timeout`
    /// (``Duration/scaled``).
    static func allExit(_ pids: [Int32], within timeout: Duration) async throws -> Bool {
        let deadline = ContinuousClock.now + timeout.scaled
        while pids.contains(where: isAlive) {
            guard ContinuousClock.now < deadline else { return false }
            try await Task.sleep(for: .milliseconds(20))
        }
        return true
    }

    /// The NUL-separated fields of /proc/PID/`file`.
    private static func fields(of pid: Int32, _ file: String) -> [String] {
        let raw = (try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/\(file)"))) ?? Data()
        return raw.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
    }
}
