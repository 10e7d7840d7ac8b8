import Foundation
import TestSupport
import Testing

@Suite("The socket's directory")
struct SocketDirectoryTests {
    @Test("a user who may not create the socket's directory hears why, with a way out")
    func permissionDenied() async throws {
        let directory = TemporaryDirectory()
        defer { directory.remove() }
        // A directory `nobody` may not write in, as /run is for a normal user.
        chmod(directory.path, 0o755)
        let socket = directory.path + "/blectl/blectld.sock"
        let runtime = TemporaryDirectory()  // the mock stack's, writable by nobody
        defer { runtime.remove() }
        chmod(runtime.path, 0o777)
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_RUNTIME_DIR"] = runtime.path
        let result = try await run(
            "/usr/bin/setpriv",
            [
                "--reuid=nobody", "--regid=nogroup", "--clear-groups", DaemonFixture.binary("blectld"), "--mock",
                "--socket", socket, "--config", "/dev/null",
            ], environment: environment, timeout: .seconds(30))
        #expect(result.status == 1)
        #expect(result.errors.contains("mkdir(\(directory.path)/blectl): Permission denied"), "\(result.errors)")
        #expect(result.errors.contains("--socket $XDG_RUNTIME_DIR/blectld.sock"))
    }
}
