import BlectlProtocol
import Glibc
import UnixSupport

/// What blectl says when it cannot reach the daemon: the cause, and commands that work as
/// typed by the user who reads them.
///
/// A user who is not root cannot create `/run/blectl`, so for them the mock daemon is
/// suggested on a socket under `$XDG_RUNTIME_DIR` (or `/tmp`), and the socket the user
/// asked for is kept when they gave one.
struct ConnectionHint {
    /// The socket blectl tried.
    var socketPath: String
    /// Whether the path came from `--socket` or `BLECTL_SOCKET` rather than the default.
    var chosenByUser: Bool
    /// Whether blectl runs as root.
    var isRoot: Bool
    /// The user's runtime directory (`$XDG_RUNTIME_DIR`), if set.
    var runtimeDirectory: String?

    init(socketPath: String, chosenByUser: Bool, environment: [String: String], isRoot: Bool = geteuid() == 0) {
        self.socketPath = socketPath
        self.chosenByUser = chosenByUser
        self.isRoot = isRoot
        runtimeDirectory = environment["XDG_RUNTIME_DIR"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The error for a failed `connect`, its cause kept.
    func explain(_ error: SystemError) -> CLIError {
        let cause = "(connect: \(error.reason))"
        switch error.code {
        case ENOENT:
            return .failure(
                "blectld is not running: no socket at \(socketPath) \(cause).\n" + startHint, .daemonUnreachable)
        case ECONNREFUSED:
            return .failure(
                "blectld is not running: nothing listens on \(socketPath) \(cause).\n" + startHint, .daemonUnreachable)
        case EACCES, EPERM:
            return .failure(
                """
                permission denied on \(socketPath) \(cause).
                Use sudo, or join the group that owns the socket (socket_group in /etc/blectl/blectld.conf).
                """, .permissionDenied)
        default:
            return .failure("cannot connect to blectld at \(socketPath) \(cause)", .daemonUnreachable)
        }
    }

    /// How to start a daemon this user can reach.
    var startHint: String {
        var lines: [String] = []
        if !chosenByUser {
            lines.append("Start it with:  \(isRoot ? "" : "sudo ")systemctl start blectld")
        }
        if chosenByUser || isRoot {
            let socket = chosenByUser ? " --socket \(Self.quoted(socketPath))" : ""
            lines.append("or try it without Bluetooth hardware:  blectld --mock\(socket)")
        } else {
            // /run/blectl is root's: a socket of the user's own, named on both commands.
            let socket = Self.quoted(userSocket)
            lines.append("or try it without Bluetooth hardware, as yourself:")
            lines.append("  blectld --mock --socket \(socket) &")
            lines.append("  blectl --socket \(socket) status")
        }
        return lines.joined(separator: "\n")
    }

    /// A socket path a user who is not root may create.
    var userSocket: String {
        if let runtimeDirectory { return runtimeDirectory + "/blectld.sock" }
        return "/tmp/blectl-\(getuid())/blectld.sock"
    }

    /// `text` as one shell word.
    static func quoted(_ text: String) -> String {
        let plain = text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || "/._-+:,@%=".utf8.contains(byte)
        }
        return plain && !text.isEmpty ? text : "'" + text.replacing("'", with: #"'\''"#) + "'"
    }
}
