// blectld: keeps BLE thermometers connected and publishes their temperatures
// on a Unix socket. See `blectld --help` and docs/protocol.md.
import Daemon
import Glibc
import ConcurrencySupport
import UnixSupport

let arguments = Array(CommandLine.arguments.dropFirst())
let invocation: DaemonInvocation
do {
    invocation = try DaemonConfiguration.load(arguments: arguments, environment: ProcessEnvironment.current)
} catch {
    writeAll(2, Array("blectld: \(error)\n".utf8))
    if case .usage = error { writeAll(2, Array("Try 'blectld --help'.\n".utf8)) }
    exit(error.exitCode)
}

switch invocation {
case .help(let text):
    writeAll(1, Array((text + "\n").utf8))
case .version(let text), .specDump(let text):
    writeAll(1, Array((text + "\n").utf8))
case .run(let configuration):
    // A burst's large arrays go back to the kernel when freed (see HeapTrim).
    HeapTrim.mapLargeBlocks(from: 256 << 10)
    let log = Log(level: configuration.logLevel)
    // It watches the stop signals from here on, through the mock stack's start.
    let runner = DaemonRunner(configuration: configuration, log: log, arguments: arguments)
    // Before anything starts: a second daemon must leave the first one's socket alone.
    // (Under socket activation systemd holds the socket: nothing to check.)
    if listenFDs().isEmpty, UnixSocket.acceptsConnections(configuration.socket.path) {
        log.error("another blectld is serving \(configuration.socket.path): stop it, or give this one another --socket")
        exit(ExitCode.temporaryFailure)
    }
    // On the main thread, which lives as long as blectld: see SpawnedProcess.
    let mock: MockStack?
    do {
        mock = configuration.mock ? try MockStack.start(log: log) : nil
    } catch {
        log.error("cannot start the mock adapter: \(error)")
        exit(ExitCode.failure)
    }
    // Not a top-level `await`: see BlockingMain for what that would cost.
    // `--mock` keeps its history in the stack's temporary directory unless told otherwise.
    let stateDirectory =
        configuration.stateDirectory ?? mock.map { $0.directory + "/state" }
        ?? DaemonConfiguration.defaultStateDirectory
    let status = BlockingMain.run { [runner, busAddress = mock?.busAddress] in
        await runner.run(mockBus: busAddress, stateDirectory: stateDirectory)
    }
    mock?.stop()
    exit(status)
}
