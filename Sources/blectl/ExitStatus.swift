import BlectlProtocol

/// blectl's exit statuses: one per failure a script may want to handle differently,
/// sysexits(3) numbers where one fits, small numbers for the Bluetooth side.
struct ExitStatus: Equatable, Sendable {
    /// The number the process exits with.
    var code: Int32
    /// What it means, for `--help`, the README and generated man pages.
    var meaning: String

    static let success = ExitStatus(code: 0, meaning: "success")
    static let failure = ExitStatus(
        code: 1, meaning: "any other failure (for example an internal error blectld reports)")
    static let bluetoothUnavailable = ExitStatus(
        code: 3, meaning: "Bluetooth unavailable: no adapter, adapter off, bluetoothd not running")
    static let notFresh = ExitStatus(
        code: 4, meaning: "read: nothing fresh; only stored readings were printed, with why on stderr")
    static let usage = ExitStatus(code: 64, meaning: "usage error (EX_USAGE)")
    static let noSuchDevice = ExitStatus(
        code: 68, meaning: "no known thermometer matches the address or name (EX_NOHOST)")
    static let daemonUnreachable = ExitStatus(
        code: 69, meaning: "blectld is not reachable: not running, or it stopped answering (EX_UNAVAILABLE)")
    static let timedOut = ExitStatus(code: 75, meaning: "nothing arrived within the timeout (EX_TEMPFAIL)")
    static let protocolMismatch = ExitStatus(
        code: 76, meaning: "the socket is not blectld's, or speaks another protocol version (EX_PROTOCOL)")
    static let permissionDenied = ExitStatus(code: 77, meaning: "permission denied on the socket (EX_NOPERM)")

    /// Every status, in order, as help lists them.
    static let all: [ExitStatus] = [
        .success, .failure, .bluetoothUnavailable, .notFresh, .usage, .noSuchDevice, .daemonUnreachable, .timedOut,
        .protocolMismatch, .permissionDenied,
    ]

    /// The status for an error blectld replied with (docs/protocol.md lists the codes).
    static func forError(_ code: ErrorCode) -> ExitStatus {
        switch code {
        case .notFound: .noSuchDevice
        case .timeout: .timedOut
        case .unavailable: .bluetoothUnavailable
        case .tooManyClients: .daemonUnreachable
        case .parseError, .badRequest, .unknownCommand, .unsupportedVersion, .lineTooLong: .protocolMismatch
        default: .failure
        }
    }
}
