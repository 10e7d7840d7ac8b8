import Foundation
import Glibc
import TestSupport
import Testing

/// The test helper that starts processes always stops them, and what they started.
@Suite struct ChildProcessTests {
    @Test(
        "a child that ignores SIGTERM is killed with everything it started",
        .enabled(if: testTimeScale == 1, "timing under a sanitizer's load (clean-clone CI): make test runs it"))
    func killsTheGroup() async throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("blectl-child-\(UUID().uuidString)")
        let pidFile = base.appendingPathExtension("pid")
        defer {
            try? FileManager.default.removeItem(at: pidFile)
            try? FileManager.default.removeItem(at: base.appendingPathExtension("log"))
        }
        // A shell that ignores SIGTERM and leaves a grandchild, like a daemon too slow to stop.
        let shell = try ChildProcess.start(
            "/bin/sh", ["-c", "trap '' TERM; sleep 60 & echo $! > '\(pidFile.path)'; wait"],
            logFile: base.appendingPathExtension("log"))
        var grandchild: pid_t = 0
        for _ in 0..<100 where grandchild == 0 {
            grandchild =
                pid_t(
                    (try? String(contentsOf: pidFile, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
                        ?? "") ?? 0
            if grandchild == 0 { try await Task.sleep(for: .milliseconds(20)) }
        }
        try #require(grandchild > 0 && kill(grandchild, 0) == 0)
        await shell.stop(grace: .milliseconds(200))
        var gone = false
        for _ in 0..<100 where !gone {
            gone = kill(grandchild, 0) != 0
            if !gone { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(gone, "the grandchild \(grandchild) outlived stop()")
    }
}
