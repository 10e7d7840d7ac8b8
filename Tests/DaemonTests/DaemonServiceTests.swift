@testable import Daemon
import Foundation
import HTTPOutput
import TestSupport
import Testing
import UnixSupport

@Suite("The daemon's outputs")
struct DaemonServiceTests {
    @Test("every output is a HubOutput, in one list: the history first (closed last), HTTP before the socket")
    func outputOrder() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("blectl-service-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = DaemonConfiguration()
        configuration.socket.path = directory + "/blectld.sock"
        configuration.http.listen = ListenAddress("127.0.0.1:0")
        let log = Log(sink: LogRecorder().sink)
        let service = try DaemonService(configuration: configuration, stateDirectory: directory, log: log)
        #expect(service.outputs.map(\.outputName) == ["history", "HTTP", "socket"])
        await service.stop()  // closing outputs never opened: the history commits and lets go
        configuration.history = false
        configuration.http.listen = nil
        let bare = try DaemonService(configuration: configuration, stateDirectory: directory, log: log)
        #expect(bare.outputs.map(\.outputName) == ["socket"])
        await bare.stop()
    }
}
