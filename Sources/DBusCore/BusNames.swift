/// How `RequestName` went (the bus's reply codes).
public enum RequestNameResult: UInt32, Sendable {
    case primaryOwner = 1
    case inQueue = 2
    case exists = 3
    case alreadyOwner = 4
}

/// A change of a bus name's owner, from `NameOwnerChanged`.
public struct NameOwnerChange: Sendable, Equatable {
    /// The name whose owner changed.
    public var name: String
    /// The previous owner's unique name; nil when the name had none.
    public var oldOwner: String?
    /// The new owner's unique name; nil when the name is now unowned.
    public var newOwner: String?

    /// Creates a change record.
    public init(name: String, oldOwner: String?, newOwner: String?) {
        self.name = name
        self.oldOwner = oldOwner
        self.newOwner = newOwner
    }
}

extension DBusConnection {
    /// Asks the bus for a well-known name. `flags`: 0x1 allow replacement,
    /// 0x2 replace existing, 0x4 do not queue (the default here).
    @discardableResult
    public func requestName(_ name: String, flags: UInt32 = 0x4) async throws -> RequestNameResult {
        try Names.validateBusName(name)
        let reply = try await busCall("RequestName", [.string(name), .uint32(flags)])
        let code = try reply.decodeSingle(UInt32.self)
        return RequestNameResult(rawValue: code) ?? .exists
    }

    /// Gives a well-known name back to the bus.
    public func releaseName(_ name: String) async throws {
        try Names.validateBusName(name)
        _ = try await busCall("ReleaseName", [.string(name)])
    }

    /// The unique name owning `name`, or nil when nobody owns it.
    public func nameOwner(_ name: String) async throws -> String? {
        do {
            return try await busCall("GetNameOwner", [.string(name)]).decodeSingle(String.self)
        } catch let error as DBusError where error.name == DBusError.Name.nameHasNoOwner {
            return nil
        }
    }

    /// Calls `handler` on the connection's event loop whenever `name` changes owner
    /// (bluetoothd starting, stopping or crashing shows up here).
    public func watchNameOwner(
        _ name: String, handler: @escaping @Sendable (NameOwnerChange) -> Void
    ) async throws -> SignalSubscription {
        let rule = MatchRule(
            sender: BusDaemon.name, interface: BusDaemon.interface, member: "NameOwnerChanged",
            path: BusDaemon.path, arguments: [0: name])
        return try await addSignalHandler(rule) { message in
            if let change = NameOwnerChange(message) { handler(change) }
        }
    }

    private func busCall(_ member: String, _ arguments: [DBusValue]) async throws -> DBusMessage {
        try await call(
            destination: BusDaemon.name, path: BusDaemon.path, interface: BusDaemon.interface, member: member,
            arguments: arguments)
    }
}

extension NameOwnerChange {
    /// Reads a `NameOwnerChanged` signal; nil when its arguments are not `sss`.
    public init?(_ message: DBusMessage) {
        let args = message.arguments
        guard args.count == 3, case .string(let name) = args[0], case .string(let old) = args[1],
            case .string(let new) = args[2]
        else { return nil }
        self.init(name: name, oldOwner: old.isEmpty ? nil : old, newOwner: new.isEmpty ? nil : new)
    }
}
