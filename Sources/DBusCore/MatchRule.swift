/// A D-Bus match rule: which signals a subscription receives.
///
/// The rule is sent to the bus (`AddMatch`) and also checked locally, because
/// the bus delivers every message matching *any* rule of the connection.
/// Here a `sender` is compared only when it is a unique name (`:1.7`) or the bus itself;
/// the connection checks a well-known sender (`org.bluez`) against the name's current
/// owner (``DBusConnection/addSignalHandler(_:handler:)``).
public struct MatchRule: Sendable, Hashable, CustomStringConvertible {
    /// The sender, a unique or well-known bus name.
    public var sender: String?
    /// The interface of the signal.
    public var interface: String?
    /// The signal name.
    public var member: String?
    /// The exact object path.
    public var path: ObjectPath?
    /// An object path and everything below it.
    public var pathNamespace: ObjectPath?
    /// String arguments that must match exactly, by index (`arg0='org.bluez'`).
    public var arguments: [Int: String]

    /// Creates a rule for signals; every field left nil matches anything.
    public init(
        sender: String? = nil, interface: String? = nil, member: String? = nil,
        path: ObjectPath? = nil, pathNamespace: ObjectPath? = nil, arguments: [Int: String] = [:]
    ) {
        self.sender = sender
        self.interface = interface
        self.member = member
        self.path = path
        self.pathNamespace = pathNamespace
        self.arguments = arguments
    }

    /// The rule in the bus's text form.
    public var description: String {
        var parts = ["type='signal'"]
        func add(_ key: String, _ value: String?) {
            if let value { parts.append("\(key)=\(quote(value))") }
        }
        add("sender", sender)
        add("interface", interface)
        add("member", member)
        add("path", path?.rawValue)
        add("path_namespace", pathNamespace?.rawValue)
        for (index, value) in arguments.sorted(by: { $0.key < $1.key }) { add("arg\(index)", value) }
        return parts.joined(separator: ",")
    }

    /// Whether a received signal matches this rule.
    public func matches(_ message: DBusMessage) -> Bool {
        message.kind == .signal && matches(SignalHeader(message), message)
    }

    /// Whether a signal with `header` (read once for all rules) matches this rule.
    func matches(_ header: SignalHeader, _ message: DBusMessage) -> Bool {
        if let interface, header.interface != interface { return false }
        if let member, header.member != member { return false }
        if let path, header.path != path { return false }
        if let pathNamespace {
            guard let messagePath = header.path, messagePath.isDescendant(of: pathNamespace) else { return false }
        }
        if let sender, sender.hasPrefix(":") || sender == BusDaemon.name, header.sender != sender { return false }
        return argumentsMatch(message)
    }

    private func argumentsMatch(_ message: DBusMessage) -> Bool {
        guard !arguments.isEmpty else { return true }
        let values = message.arguments
        for (index, expected) in arguments {
            guard values.indices.contains(index), case .string(let actual) = values[index], actual == expected else {
                return false
            }
        }
        return true
    }

    /// Quotes a value: `'` is written as `'\''` (close, escaped quote, reopen).
    private func quote(_ value: String) -> String {
        var quoted = "'"
        for character in value { quoted += character == "'" ? "'\\''" : String(character) }
        return quoted + "'"
    }
}

/// The fields of a signal that rules test, read from libdbus once per message rather
/// than once per rule (each read copies a C string).
struct SignalHeader {
    let path: ObjectPath?
    let interface: String?
    let member: String?
    let sender: String?

    init(_ message: DBusMessage) {
        path = message.path
        interface = message.interface
        member = message.member
        sender = message.sender
    }
}
