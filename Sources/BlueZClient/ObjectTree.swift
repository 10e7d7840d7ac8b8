import DBusCore
import UnixSupport

/// The mirror of BlueZ's objects: path → interface → property → value.
///
/// BlueZ links only child → parent; the tree answers parent → children
/// questions by path, which is how BlueZ nests its objects, from an index of each
/// object's children: the GATT objects of one device, the devices of one adapter, are
/// found without looking at the ten thousand others a crowded place may hold.
struct ObjectTree: Sendable {
    /// Every object, by path.
    private(set) var objects: [ObjectPath: [String: [String: DBusValue]]] = [:]
    /// The paths of the objects directly below each path (only paths with children).
    private var children: [ObjectPath: Set<ObjectPath>] = [:]
    /// UUID texts the objects share (see ``shared(_:)``).
    var uuids: [String: String] = [:]

    /// Creates an empty tree.
    init() {}

    /// Creates a tree from a `GetManagedObjects` reply.
    init(snapshot: [ObjectPath: [String: [String: DBusValue]]]) {
        objects = snapshot  // every path first, so that references to any of them are shared
        for (path, interfaces) in snapshot {
            objects[path] = shared(interfaces)
            link(path)
        }
    }

    /// The properties of `interface` at `path`.
    func properties(_ path: ObjectPath, _ interface: String) -> [String: DBusValue]? {
        objects[path]?[interface]
    }

    /// Whether `path` has `interface`.
    func has(_ path: ObjectPath, _ interface: String) -> Bool { objects[path]?[interface] != nil }

    // MARK: Updates (applied before observers hear of them)

    mutating func add(_ path: ObjectPath, _ interfaces: [String: [String: DBusValue]]) {
        let interfaces = shared(interfaces)
        if objects[path] == nil { link(path) }
        objects[path, default: [:]].merge(interfaces) { $1 }
    }

    mutating func remove(_ path: ObjectPath, _ interfaces: [String]) {
        guard var object = objects[path] else { return }
        for interface in interfaces { object[interface] = nil }
        objects[path] = object.isEmpty ? nil : object
        if object.isEmpty { unlink(path) }
    }

    private mutating func link(_ path: ObjectPath) {
        guard let parent = path.parent else { return }
        children[parent, default: []].insert(path)
    }

    private mutating func unlink(_ path: ObjectPath) {
        guard let parent = path.parent else { return }
        children[parent]?.remove(path)
        if children[parent]?.isEmpty == true { children[parent] = nil }
    }

    /// Applies a `PropertiesChanged`; returns false for an unknown object or
    /// interface (the snapshot is newer, so the change is dropped).
    mutating func change(
        _ path: ObjectPath, _ interface: String, _ changed: [String: DBusValue], invalidated: [String]
    ) -> Bool {
        // Mutated in place without allocating (notifications come through here thousands of
        // times a second).
        let applied = objects.withValue(forKey: path) { object in
            object.withValue(forKey: interface) { $0.apply(changed, invalidated: invalidated) } != nil
        }
        return applied ?? false
    }

    mutating func removeAll() {
        objects = [:]
        children = [:]
    }

    // MARK: Queries

    /// Paths with `interface` directly below `parent` (or anywhere when `parent` is nil), sorted.
    func paths(with interface: String, under parent: ObjectPath? = nil) -> [ObjectPath] {
        guard let parent else {
            return objects.compactMap { path, interfaces in interfaces[interface] != nil ? path : nil }.sorted()
        }
        return (children[parent] ?? []).filter { objects[$0]?[interface] != nil }.sorted()
    }

    /// How many objects sit directly below `parent`.
    func childCount(_ parent: ObjectPath) -> Int { children[parent]?.count ?? 0 }

    /// Builds a typed view, collecting type problems.
    func view<T>(
        _ path: ObjectPath, _ interface: String, problems: inout [String],
        _ make: (ObjectPath, inout PropertyReader) -> T
    ) -> T? {
        guard let properties = properties(path, interface) else { return nil }
        var reader = PropertyReader(properties)
        let view = make(path, &reader)
        problems += reader.problems.map { "\(path) \(interface) \($0)" }
        return view
    }
}

extension Dictionary where Key == String, Value == DBusValue {
    fileprivate mutating func apply(_ changed: [String: DBusValue], invalidated: [String]) {
        for (name, value) in changed { updateValue(value, forKey: name) }
        for name in invalidated { removeValue(forKey: name) }
    }
}
