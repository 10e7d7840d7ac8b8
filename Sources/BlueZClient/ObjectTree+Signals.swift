import DBusCore

/// What one of BlueZ's signals did to the mirror, for telling observers afterwards.
enum MirrorChange {
    /// An object gained interfaces.
    case added(ObjectPath, [String])
    /// An object lost interfaces.
    case removed(ObjectPath, [String])
    /// Properties of a mirrored object changed.
    case changed(ObjectPath, PropertiesChange)
    /// Nothing: another signal, or a change to an object or interface the mirror lacks.
    case none
    /// The signal's body was not what its member says; the mirror is unchanged.
    case malformed(String)

    /// The observers' events for the change, in order; wrong-typed values go to `problem`.
    func events(problem: (String) -> Void, _ emit: (BlueZEvent) -> Void) {
        switch self {
        case .added(let object, let interfaces):
            for kind in BlueZ.kinds(of: interfaces) { emit(.added(BlueZPath(object), kind)) }
        case .removed(let object, let interfaces):
            for kind in BlueZ.kinds(of: interfaces) { emit(.removed(BlueZPath(object), kind)) }
        case .changed(let path, let change):
            PropertyEvents.emit(BlueZPath(path), change.interface, change.changed, problem: problem, emit)
        case .none, .malformed:
            break
        }
    }
}

extension ObjectTree {
    /// Applies one of BlueZ's signals (`InterfacesAdded`, `InterfacesRemoved`,
    /// `PropertiesChanged`) to the mirror; observers are told afterwards, from the result.
    mutating func apply(_ message: DBusMessage) -> MirrorChange {
        guard let path = message.path else { return .none }
        switch message.member {
        case "InterfacesAdded":
            let args = message.arguments
            guard args.count == 2, case .objectPath(let object) = args[0],
                let interfaces = try? args[1].decode([String: [String: DBusValue]].self)
            else { return .malformed("malformed InterfacesAdded from \(message.sender ?? "?")") }
            add(object, interfaces)
            return .added(object, interfaces.keys.sorted())
        case "InterfacesRemoved":
            let args = message.arguments
            guard args.count == 2, case .objectPath(let object) = args[0],
                let names = try? args[1].decode([String].self)
            else { return .malformed("malformed InterfacesRemoved from \(message.sender ?? "?")") }
            remove(object, names)
            return .removed(object, names)
        case "PropertiesChanged":
            guard let change = message.propertiesChange else {
                return .malformed("malformed PropertiesChanged on \(path)")
            }
            guard self.change(path, change.interface, change.changed, invalidated: change.invalidated) else {
                return .none
            }
            return .changed(path, change)
        default:
            return .none
        }
    }
}
