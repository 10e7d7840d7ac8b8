import DBusCore

/// A failed BlueZ call, classified by what the caller should do about it.
public enum BlueZError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `org.bluez.Error.InProgress` or "Operation already in progress".
    case inProgress(String)
    /// `org.bluez.Error.NotReady`: the adapter is off; wait for `Powered=true`.
    case notReady(String)
    /// `org.bluez.Error.Failed`, e.g. `le-connection-abort-by-local` or "Not connected".
    case failed(String)
    /// The object is gone (`UnknownObject`, or a device removed meanwhile).
    case unknownObject(String)
    /// The D-Bus policy refused us (`AccessDenied`): not root and not in the `bluetooth` group.
    case accessDenied(String)
    /// No reply within the deadline.
    case timeout(String)
    /// bluetoothd is not on the bus (`ServiceUnknown`, `NameHasNoOwner`, or it left mid-call).
    case serviceUnavailable(String)
    /// `NotPermitted`, `NotAuthorized`, `NotSupported`, `InvalidOffset`, `InvalidArguments`…
    case refused(name: String, message: String)
    /// Our own D-Bus connection is gone.
    case disconnected(String)
    /// `org.bluez.Error.AlreadyConnected` (newer BlueZ): `Connect` on a device with a link
    /// up; whether it is connected is for `Connected` to say.
    case alreadyConnected(String)
    /// Too many calls awaiting replies (`LimitsExceeded`, from dbus-daemon or our own
    /// budget): back-pressure, not a fault of the device; try again later.
    case busy(String)

    /// Classifies a D-Bus error.
    init(_ error: DBusError) {
        let message = error.message
        switch error.name {
        case "org.bluez.Error.InProgress": self = .inProgress(message)
        case "org.bluez.Error.AlreadyConnected": self = .alreadyConnected(message)
        case DBusError.Name.limitsExceeded: self = .busy(message)
        case "org.bluez.Error.NotReady": self = .notReady(message)
        case "org.bluez.Error.Failed":
            self = message.includes("already in progress") ? .inProgress(message) : .failed(message)
        case "org.bluez.Error.DoesNotExist", DBusError.Name.unknownObject, DBusError.Name.unknownMethod:
            self = .unknownObject(message)
        case DBusError.Name.accessDenied, "org.freedesktop.DBus.Error.AuthFailed":
            self = .accessDenied(message)
        case DBusError.Name.noReply where message.includes("disconnected"):
            self = .serviceUnavailable(message)
        case DBusError.Name.noReply, DBusError.Name.timeout: self = .timeout(message)
        case DBusError.Name.serviceUnknown, DBusError.Name.nameHasNoOwner: self = .serviceUnavailable(message)
        case DBusError.Name.disconnected: self = .disconnected(message)
        default: self = .refused(name: error.name, message: message)
        }
    }

    /// Classifies any error thrown by a call.
    public init(any error: any Error) {
        switch error {
        case let error as BlueZError: self = error
        case let error as DBusError: self.init(error)
        default: self = .refused(name: "blectl.Error", message: "\(error)")
        }
    }

    /// A one-line account of the error for logs and users.
    public var description: String {
        switch self {
        case .inProgress(let m): "operation in progress (\(m))"
        case .notReady(let m): "adapter not ready (\(m))"
        case .failed(let m): "failed: \(m)"
        case .unknownObject(let m): "object gone (\(m))"
        case .accessDenied(let m):
            "access denied by D-Bus policy (\(m)): run as root or as a member of the 'bluetooth' group"
        case .timeout(let m): "no reply in time (\(m))"
        case .serviceUnavailable(let m): "bluetoothd is not running (\(m))"
        case .refused(let name, let m): "\(name): \(m)"
        case .disconnected(let m): "D-Bus connection lost (\(m))"
        case .alreadyConnected(let m): "already connected (\(m))"
        case .busy(let m): "too many D-Bus calls outstanding, will retry (\(m))"
        }
    }
}

extension String {
    /// Whether `part` occurs in the text, compared as UTF-8. `String.contains(_:)` with a
    /// string argument lives in _StringProcessing, which would link the regex engine
    /// (about 1 MB of code) into blectld for two phrase checks.
    fileprivate func includes(_ part: String) -> Bool {
        let text = Array(utf8)
        let part = Array(part.utf8)
        guard part.count <= text.count else { return false }
        return (0...text.count - part.count).contains { text[$0..<$0 + part.count].elementsEqual(part) }
    }
}
