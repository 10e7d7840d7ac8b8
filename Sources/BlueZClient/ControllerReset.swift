import CBlueZ
import DBusCore
import Glibc

/// Resets a Bluetooth controller below bluetoothd: the last step of the recovery ladder
/// for an adapter that hears nothing while bluetoothd still says it is discovering.
///
/// The daemon uses ``HCIControllerReset`` (libbluetooth); tests stub this protocol at the
/// libbluetooth boundary, and `blectld --mock` asks the mock adapter (``MockControllerReset``).
public protocol ControllerResetting: Sendable {
    /// Takes controller `index` (`hciN`) down and up again; bluetoothd sees it power off and on.
    func resetController(index: Int) async throws(ControllerResetError)
}

/// Why a controller reset failed.
public struct ControllerResetError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The controller (`hciN`).
    public var index: Int
    /// The `errno` of the failed HCI call (0 when the failure was not a system call's).
    public var code: Int32
    /// What failed, when it was not a system call.
    public var message: String?

    /// Creates an error.
    public init(index: Int, code: Int32, message: String? = nil) {
        self.index = index
        self.code = code
        self.message = message
    }

    /// A one-line account, with what to do about a missing permission.
    public var description: String {
        if let message { return "cannot reset hci\(index): \(message)" }
        let reason = String(cString: strerror(code))
        switch code {
        case EPERM, EACCES:
            return "cannot reset hci\(index): \(reason) (needs CAP_NET_ADMIN: adapter_reset = yes and the "
                + "systemd drop-in of README's \"Recovery ladder\")"
        case ENODEV: return "cannot reset hci\(index): no such controller (\(reason))"
        default: return "cannot reset hci\(index): \(reason)"
        }
    }
}

/// Resets a controller with libbluetooth's HCI calls (`hci_open_dev`, the `HCIDEVDOWN` and
/// `HCIDEVUP` ioctls), as `hciconfig hciN reset` does; needs `CAP_NET_ADMIN`.
public struct HCIControllerReset: ControllerResetting {
    /// Creates the resetter.
    public init() {}

    /// Resets controller `index`.
    ///
    /// `HCIDEVUP` blocks while the kernel initialises the controller (seconds at worst), so
    /// the call runs on a thread of the global executor, never on the D-Bus event loop.
    public func resetController(index: Int) async throws(ControllerResetError) {
        let code = await Task.detached { cbluez_hci_reset(Int32(index)) }.value
        guard code == 0 else { throw ControllerResetError(index: index, code: code) }
    }
}

/// Resets a controller of the mock adapter (`blectld --mock`): its control interface's
/// `controller-reset` fault shows what bluetoothd shows when a controller is reset behind
/// its back, without touching the machine's own Bluetooth.
public struct MockControllerReset: ControllerResetting {
    let connection: DBusConnection

    /// Resets controller `index` of the mock.
    public func resetController(index: Int) async throws(ControllerResetError) {
        do {
            _ = try await connection.call(
                destination: "org.blectl.Mock", path: "/org/blectl/Mock", interface: "org.blectl.Mock1",
                member: "InjectFault",
                arguments: [.string("controller-reset"), .propertyMap([("adapter", .string("hci\(index)"))])],
                timeout: .seconds(10))
        } catch {
            throw ControllerResetError(index: index, code: 0, message: "the mock adapter refused: \(error)")
        }
    }
}

extension BlueZService {
    /// A resetter that asks the mock adapter on this client's bus (`blectld --mock`).
    public nonisolated var mockControllerReset: MockControllerReset { MockControllerReset(connection: connection) }
}
