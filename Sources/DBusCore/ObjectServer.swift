/// Serves objects on a connection: their methods, `Properties`, `Introspectable`
/// and, at chosen roots, `ObjectManager`.
///
/// The server shares its connection's executor, so incoming calls reach it
/// without a hop and replies keep the order in which the calls arrived.
public actor DBusObjectServer {
    /// The connection the objects are served on.
    public nonisolated let connection: DBusConnection
    /// The connection's executor: the server runs on the connection's event loop.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { connection.unownedExecutor }

    /// Whether object listings name `Introspectable` and `Properties` too, with
    /// empty property maps, as BlueZ's gdbus does.
    private let listsStandardInterfaces: Bool
    private var objects: [ObjectPath: ServedObject] = [:]
    private var managerRoots: Set<ObjectPath> = []

    static let propertiesInterface = "org.freedesktop.DBus.Properties"
    static let objectManagerInterface = "org.freedesktop.DBus.ObjectManager"
    static let introspectableInterface = "org.freedesktop.DBus.Introspectable"

    /// Creates a server and makes it the connection's handler for method calls.
    public init(connection: DBusConnection, listsStandardInterfaces: Bool = false) async {
        self.connection = connection
        self.listsStandardInterfaces = listsStandardInterfaces
        await connection.setMethodCallHandler { [weak self] message in
            guard let self else { return false }
            return self.assumeIsolated { $0.receive(message) }
        }
    }

    // MARK: Objects

    /// Serves `interfaces` at `path` (added to any it already has) and announces
    /// them with `InterfacesAdded` when the path is under an object manager.
    public func export(_ path: ObjectPath, _ interfaces: [ExportedInterface]) throws {
        var object = objects[path] ?? ServedObject()
        for interface in interfaces {
            try Names.validateInterface(interface.name)
            object.add(interface)
        }
        objects[path] = object
        guard let root = managerRoot(for: path) else { return }
        let added = interfaces.map { ($0.name, $0.properties.map { ($0.name, $0.value) }) }
        try emit(
            path: root, interface: Self.objectManagerInterface, member: "InterfacesAdded",
            [.objectPath(path), interfaceMap(added, withStandard: objects[path]?.interfaceCount == interfaces.count)])
    }

    /// Stops serving `interfaces` at `path` (all of them when nil), announced with `InterfacesRemoved`.
    public func unexport(_ path: ObjectPath, interfaces: [String]? = nil) throws {
        guard var object = objects[path] else { return }
        let names = interfaces ?? object.interfaceNames
        let removed = names.filter { object.remove($0) }
        objects[path] = object.isEmpty ? nil : object
        guard !removed.isEmpty, let root = managerRoot(for: path) else { return }
        // gdbus lists the standard interfaces first when a whole object goes.
        let listed =
            object.isEmpty && listsStandardInterfaces
            ? [Self.propertiesInterface, Self.introspectableInterface] + removed : removed
        try emit(
            path: root, interface: Self.objectManagerInterface, member: "InterfacesRemoved",
            [.objectPath(path), .strings(listed)])
    }

    /// Serves `org.freedesktop.DBus.ObjectManager` at `root` for every object below it.
    public func addObjectManager(at root: ObjectPath) {
        managerRoots.insert(root)
    }

    /// Whether `path` serves `interface`.
    public func hasInterface(_ path: ObjectPath, _ interface: String) -> Bool {
        objects[path]?.interface(interface) != nil
    }

    // MARK: Properties

    /// The current value of a property.
    public func property(_ path: ObjectPath, _ interface: String, _ name: String) -> DBusValue? {
        objects[path]?.interface(interface)?.properties.first { $0.name == name }?.value
    }

    /// Changes properties and, when `emit` is set, sends one `PropertiesChanged`
    /// with the changed values and the `invalidated` names (which are removed).
    public func setProperties(
        _ path: ObjectPath, _ interface: String, _ changed: [(String, DBusValue)],
        invalidated: [String] = [], emit: Bool = true
    ) throws {
        guard var object = objects[path], var served = object.interface(interface) else {
            throw DBusError(name: DBusError.Name.unknownObject, message: "no \(interface) at \(path)")
        }
        for (name, value) in changed { served.set(name, value) }
        served.properties.removeAll { invalidated.contains($0.name) }
        object.replace(served)
        objects[path] = object
        guard emit, !(changed.isEmpty && invalidated.isEmpty) else { return }
        try self.emit(
            path: path, interface: Self.propertiesInterface, member: "PropertiesChanged",
            [.string(interface), .propertyMap(changed), .strings(invalidated)])
    }

    /// Changes one property and announces it.
    func setProperty(_ path: ObjectPath, _ interface: String, _ name: String, _ value: DBusValue) throws {
        try setProperties(path, interface, [(name, value)])
    }

    /// Sends a signal from `path`.
    public func emit(path: ObjectPath, interface: String, member: String, _ arguments: [DBusValue]) throws {
        try connection.assumeIsolated {
            try $0.send(.signal(path: path, interface: interface, member: member, arguments: arguments))
        }
    }

    // MARK: Incoming calls

    private func receive(_ message: DBusMessage) -> Bool {
        guard let path = message.path, let member = message.member else { return false }
        let call = MethodCall(message: message, arguments: message.arguments)
        // Answers that read the object table are sent at once, so that no signal
        // sent after them can describe a newer state than they do (a client that
        // snapshots with GetManagedObjects relies on that order).
        switch message.interface {
        case Self.propertiesInterface? where objects[path] != nil && member == "Set":
            return respond(call) { try await self.set(call) }
        case Self.propertiesInterface? where objects[path] != nil:
            return replyNow(call) { try self.properties(member, call) }
        case Self.objectManagerInterface? where managerRoots.contains(path) && member == "GetManagedObjects":
            return replyNow(call) { [self.managedObjects(under: path)] }
        case Self.introspectableInterface? where member == "Introspect":
            return replyNow(call) { [.string(self.introspect(path))] }
        default:
            guard objects[path] != nil || managerRoots.contains(path) else {
                return replyNow(call) {
                    throw DBusError(name: DBusError.Name.unknownObject, message: "No such object path '\(path)'")
                }
            }
            guard let method = findMethod(path, message.interface, member) else { return false }
            return respond(call) {
                if let expected = method.inSignature, call.message.signature != expected {
                    throw DBusError(
                        name: DBusError.Name.invalidArgs,
                        message: "\(member) takes '\(expected)', got '\(call.message.signature)'")
                }
                return try await method.handler(call)
            }
        }
    }

    private func findMethod(_ path: ObjectPath, _ interface: String?, _ member: String) -> ExportedMethod? {
        guard let object = objects[path] else { return nil }
        if let interface { return object.interface(interface)?.methods[member] }
        return object.allInterfaces.lazy.compactMap { $0.methods[member] }.first
    }

    /// Runs a handler in a task on this executor (tasks start in arrival order)
    /// and sends its reply or error.
    private func respond(_ call: MethodCall, _ body: @escaping @Sendable () async throws -> [DBusValue]) -> Bool {
        Task {
            let result: Result<[DBusValue], any Error>
            do { result = .success(try await body()) } catch { result = .failure(error) }
            send(result, to: call)
        }
        return true
    }

    /// Answers at once, from the current state.
    private func replyNow(_ call: MethodCall, _ body: () throws -> [DBusValue]) -> Bool {
        send(Result { try body() }, to: call)
        return true
    }

    private func send(_ result: Result<[DBusValue], any Error>, to call: MethodCall) {
        guard !call.message.noReplyExpected else { return }
        let reply: DBusMessage?
        switch result {
        case .success(let values):
            reply = try? call.message.makeReply(values)
        case .failure(let error as DBusError):
            reply = try? call.message.makeErrorReply(error)
        case .failure(let error):
            reply = try? call.message.makeErrorReply(DBusError(name: DBusError.Name.failed, message: "\(error)"))
        }
        guard let reply else { return }
        connection.assumeIsolated { try? $0.send(reply) }
    }

    private func properties(_ member: String, _ call: MethodCall) throws -> [DBusValue] {
        let served = try servedInterface(call)
        switch member {
        case "GetAll":
            return [.propertyMap(served.properties.map { ($0.name, $0.value) })]
        case "Get":
            let name = try call.argument(1, as: String.self)
            guard let property = served.properties.first(where: { $0.name == name }) else {
                throw DBusError(name: DBusError.Name.invalidArgs, message: "No such property '\(name)'")
            }
            return [.variant(property.value)]
        default:
            throw DBusError(name: DBusError.Name.unknownMethod, message: "Properties has no method \(member)")
        }
    }

    private func servedInterface(_ call: MethodCall) throws -> ExportedInterface {
        let interface = try call.argument(0, as: String.self)
        guard let served = objects[call.path]?.interface(interface) else {
            throw DBusError(name: DBusError.Name.invalidArgs, message: "No such interface '\(interface)'")
        }
        return served
    }

    private func set(_ call: MethodCall) async throws -> [DBusValue] {
        let served = try servedInterface(call)
        let name = try call.argument(1, as: String.self)
        let value = try call.argument(2, as: DBusValue.self)
        guard let property = served.properties.first(where: { $0.name == name }) else {
            throw DBusError(name: DBusError.Name.invalidArgs, message: "No such property '\(name)'")
        }
        guard property.writable else {
            throw DBusError(name: DBusError.Name.propertyReadOnly, message: "Property '\(name)' is not writable")
        }
        guard value.signatureText == property.value.signatureText else {
            throw DBusError(
                name: DBusError.Name.invalidArgs,
                message: "Property '\(name)' is '\(property.value.signature)', got '\(value.signature)'")
        }
        try await served.setter?(name, value, call)
        try setProperty(call.path, served.name, name, value)
        return []
    }

    // MARK: ObjectManager and introspection

    private func managerRoot(for path: ObjectPath) -> ObjectPath? {
        managerRoots.filter { path.isDescendant(of: $0, includingSelf: false) }.max {
            $0.rawValue.count < $1.rawValue.count
        }
    }

    private func managedObjects(under root: ObjectPath) -> DBusValue {
        let entries = objects.keys.filter { $0.isDescendant(of: root, includingSelf: false) }.sorted().map { path in
            let interfaces = objects[path]!.allInterfaces.map { ($0.name, $0.properties.map { ($0.name, $0.value) }) }
            return DBusDictionaryEntry(.objectPath(path), interfaceMap(interfaces, withStandard: true))
        }
        return .dictionary(key: "o", value: "a{sa{sv}}", entries)
    }

    private func interfaceMap(_ interfaces: [(String, [(String, DBusValue)])], withStandard: Bool) -> DBusValue {
        var list = interfaces
        if listsStandardInterfaces, withStandard {
            list = [(Self.introspectableInterface, [])] + list + [(Self.propertiesInterface, [])]
        }
        return .dictionary(
            key: "s", value: "a{sv}", list.map { DBusDictionaryEntry(.string($0.0), .propertyMap($0.1)) })
    }

    private func introspect(_ path: ObjectPath) -> String {
        let children = Set(
            objects.keys.compactMap { child -> String? in
                guard child.isDescendant(of: path, includingSelf: false) else { return nil }
                let rest = child.rawValue.dropFirst(path.rawValue == "/" ? 1 : path.rawValue.count + 1)
                return rest.split(separator: "/").first.map(String.init)
            })
        return Introspection.xml(
            interfaces: objects[path]?.allInterfaces ?? [], isManager: managerRoots.contains(path),
            children: children.sorted())
    }
}

/// The interfaces served at one path, in the order they were added.
struct ServedObject {
    private var order: [String] = []
    private var byName: [String: ExportedInterface] = [:]

    var isEmpty: Bool { order.isEmpty }
    var interfaceCount: Int { order.count }
    var interfaceNames: [String] { order }
    var allInterfaces: [ExportedInterface] { order.compactMap { byName[$0] } }

    func interface(_ name: String) -> ExportedInterface? { byName[name] }

    mutating func add(_ interface: ExportedInterface) {
        if byName[interface.name] == nil { order.append(interface.name) }
        byName[interface.name] = interface
    }

    mutating func replace(_ interface: ExportedInterface) { byName[interface.name] = interface }

    mutating func remove(_ name: String) -> Bool {
        guard byName.removeValue(forKey: name) != nil else { return false }
        order.removeAll { $0 == name }
        return true
    }
}

extension ExportedInterface {
    mutating func set(_ name: String, _ value: DBusValue) {
        if let index = properties.firstIndex(where: { $0.name == name }) {
            properties[index].value = value
        } else {
            properties.append(ExportedProperty(name, value))
        }
    }
}
