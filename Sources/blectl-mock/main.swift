// blectl-mock: a fake bluetoothd serving BlueZ's D-Bus API with simulated Pi thermometers.
import MockBlueZ
import PrivateBus
import UnixSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes a command-line mistake the usual way and exits with EX_USAGE.
func usageFailure(_ message: String) -> Never {
    writeAll(STDERR_FILENO, Array("blectl-mock: \(message)\nTry 'blectl-mock --help'.\n".utf8))
    exit(ExitCode.usage)
}

let parsed: ParsedArguments
let address: String
let scenario: MockScenario
let level: LogLevel
do {
    parsed = try MockCommandLine.parser.parse(Array(CommandLine.arguments.dropFirst()))
    if parsed.flag("help") {
        writeAll(STDOUT_FILENO, Array((MockCommandLine.helpText + "\n").utf8))
        exit(ExitCode.success)
    }
    if parsed.flag("version") {
        writeAll(STDOUT_FILENO, Array((MockCommandLine.versionText + "\n").utf8))
        exit(ExitCode.success)
    }
    if parsed.flag("dump-spec") {
        writeAll(STDOUT_FILENO, Array((MockCommandLine.specText + "\n").utf8))
        exit(ExitCode.success)
    }
    if let socket = parsed.value("print-bus-config") {
        writeAll(STDOUT_FILENO, Array(PrivateBusConfiguration.text(socket: socket).utf8))
        exit(ExitCode.success)
    }
    scenario = try MockCommandLine.scenario(parsed)
    level = try MockCommandLine.logLevel(parsed)
    address = try MockCommandLine.busAddress(parsed, environment: ProcessEnvironment.current)
} catch {
    usageFailure(error.message)
}

let log = Log(level: level)
if let path = parsed.value("emit-log") {
    do { try EmitLog.shared.open(path) } catch { usageFailure("--emit-log: \(error.message)") }
}
ProcessSignals.ignoreBrokenPipe()
// Watch the signals before anything starts, so a SIGTERM during start-up is not fatal. With
// a lifeline the parent owns the mock's life: the signals a process group or cgroup gets as a
// whole are for the parent, which stops the mock by closing the pipe. (Blocked by blectld,
// they are ignored here too: the async main's threads do not keep the mask blectld set.)
let lifeline = parsed.flag("stdin-lifeline")
if lifeline { ProcessSignals.ignore([.terminate, .interrupt, .hangup]) }
let signals = lifeline ? nil : SignalWatcher.stream([.terminate, .interrupt])

let mock: MockBluetoothd
do {
    mock = try await MockBluetoothd.start(
        address: address, scenario: scenario, serveControl: !parsed.flag("no-control"),
        log: { @Sendable line in log.info(line) })
} catch {
    log.error("cannot serve org.bluez on \(address): \(error)")
    exit(ExitCode.failure)
}
log.notice(
    "serving org.bluez on \(address): \(scenario.adapters.count) adapter(s), \(scenario.peripherals.count) peripheral(s)"
)
// As bluetoothd does, exit when the bus goes away: nothing can reach the mock any more.
await mock.onBusLost {
    log.error("lost the D-Bus connection to \(address): exiting")
    EmitLog.shared.close()
    exit(ExitCode.failure)
}
// The readiness line: parents wait for it instead of polling the bus.
writeAll(STDOUT_FILENO, Array("ready org.bluez on \(address)\n".utf8))

if let signals {
    for await signal in signals {
        log.notice("\(signal): stopping")
        break
    }
} else {
    await StdinLifeline.endOfFile()
    log.notice("end of file on stdin (the lifeline): stopping")
}
await mock.stop()
EmitLog.shared.close()
exit(ExitCode.success)
