import Foundation

/// Runs a program to completion, returning its exit status, stdout and stderr; SIGKILLs it
/// and throws when it takes longer than `timeout`.
///
/// Both streams go to files read after the exit: a grandchild that keeps a pipe open
/// cannot hold the call past the program's own end.
public func run(
    _ path: String, _ arguments: [String], environment: [String: String]? = nil, timeout: Duration = .seconds(30)
) async throws -> (status: Int32, output: String, errors: String) {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("blectl-run-\(UUID().uuidString)")
    let out = base.appendingPathExtension("out")
    let err = base.appendingPathExtension("err")
    defer {
        try? FileManager.default.removeItem(at: out)
        try? FileManager.default.removeItem(at: err)
    }
    let process = try ChildProcess.start(path, arguments, environment: environment, logFile: err, stdoutFile: out)
    guard let status = await process.waitForExit(timeout: timeout) else {
        await process.stop(signal: SIGKILL)
        throw TestSupportError("\(path) \(arguments) did not finish in \(timeout)")
    }
    return (status, (try? String(contentsOf: out, encoding: .utf8)) ?? "", process.log())
}
