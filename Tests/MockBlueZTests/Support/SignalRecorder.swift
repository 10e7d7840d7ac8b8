import DBusCore
import TestSupport

/// A signal as a test looks at it.
struct Recorded: Sendable, CustomStringConvertible {
    let sender: String
    let serial: UInt32
    let path: ObjectPath
    let interface: String
    let member: String
    let arguments: [DBusValue]

    /// For `PropertiesChanged`: the interface whose properties changed.
    var changedInterface: String? {
        guard member == "PropertiesChanged", case .string(let name)? = arguments.first else { return nil }
        return name
    }

    /// For `PropertiesChanged`: the changed properties, in order.
    var changed: [(String, DBusValue)] {
        guard member == "PropertiesChanged", arguments.count == 3, let entries = arguments[1].dictionaryEntries
        else { return [] }
        return entries.compactMap { entry in
            guard case .string(let name) = entry.key, case .variant(let value) = entry.value else { return nil }
            return (name, value)
        }
    }

    var changedNames: [String] { changed.map(\.0) }

    func changedValue(_ name: String) -> DBusValue? { changed.first { $0.0 == name }?.1 }

    /// For `PropertiesChanged`: the invalidated names.
    var invalidated: [String] {
        guard member == "PropertiesChanged", arguments.count == 3, case .array(_, let items) = arguments[2] else {
            return []
        }
        return items.compactMap { if case .string(let name) = $0 { name } else { nil } }
    }

    /// For `InterfacesAdded`/`InterfacesRemoved`: the object.
    var object: ObjectPath? {
        guard case .objectPath(let path)? = arguments.first else { return nil }
        return path
    }

    /// For `InterfacesAdded`: interface → properties (name, value) in order.
    var addedInterfaces: [(String, [(String, DBusValue)])] {
        guard member == "InterfacesAdded", arguments.count == 2, let entries = arguments[1].dictionaryEntries
        else { return [] }
        return entries.compactMap { entry in
            guard case .string(let name) = entry.key, let properties = entry.value.dictionaryEntries else {
                return nil
            }
            return (
                name,
                properties.compactMap { property in
                    guard case .string(let key) = property.key, case .variant(let value) = property.value else {
                        return nil
                    }
                    return (key, value)
                }
            )
        }
    }

    /// For `InterfacesRemoved`: the interface names.
    var removedInterfaces: [String] {
        guard member == "InterfacesRemoved", arguments.count == 2, case .array(_, let items) = arguments[1] else {
            return []
        }
        return items.compactMap { if case .string(let name) = $0 { name } else { nil } }
    }

    var description: String {
        switch member {
        case "PropertiesChanged":
            let values = changed.map { "\($0.0)=\(Self.short($0.1))" }.joined(separator: ", ")
            let gone = invalidated.isEmpty ? "" : " -\(invalidated)"
            return "PC \(path) \(changedInterface ?? "") [\(values)]\(gone)"
        case "InterfacesAdded": return "IA \(object?.rawValue ?? "") \(addedInterfaces.map(\.0))"
        case "InterfacesRemoved": return "IR \(object?.rawValue ?? "") \(removedInterfaces)"
        case "NameOwnerChanged": return "NOC \(arguments)"
        default: return "\(member) \(path)"
        }
    }

    private static func short(_ value: DBusValue) -> String {
        switch value {
        case .boolean(let flag): "\(flag)"
        case .string(let text): "\"\(text)\""
        case .int16(let number): "\(number)"
        case .array(element: "y", let bytes): "bytes(\(bytes.count))"
        default: "\(value.signature)"
        }
    }
}

/// Records, in arrival order, every signal org.bluez sends (under `/`) and org.bluez's
/// `NameOwnerChanged`, on a client connection — the match rules a central adds first.
final class SignalRecorder: Sendable {
    private let storage = Guarded<[Recorded]>([])

    /// Adds the match rules on `connection` and starts recording.
    static func start(on connection: DBusConnection) async throws -> SignalRecorder {
        let recorder = SignalRecorder()
        let record: @Sendable (DBusMessage) -> Void = { [recorder] message in
            // Handlers run on the connection's queue in arrival order; append synchronously.
            recorder.storage.withLock {
                $0.append(
                    Recorded(
                        sender: message.sender ?? "", serial: message.serial, path: message.path ?? .root,
                        interface: message.interface ?? "",
                        member: message.member ?? "", arguments: message.arguments))
            }
        }
        let manager = "org.freedesktop.DBus.ObjectManager"
        _ = try await connection.addSignalHandler(
            MatchRule(sender: "org.bluez", interface: manager, member: "InterfacesAdded", path: .root), handler: record)
        _ = try await connection.addSignalHandler(
            MatchRule(sender: "org.bluez", interface: manager, member: "InterfacesRemoved", path: .root),
            handler: record)
        _ = try await connection.addSignalHandler(
            MatchRule(
                sender: "org.bluez", interface: "org.freedesktop.DBus.Properties", member: "PropertiesChanged",
                pathNamespace: "/org/bluez"), handler: record)
        _ = try await connection.addSignalHandler(
            MatchRule(
                sender: BusDaemon.name, interface: BusDaemon.interface, member: "NameOwnerChanged",
                path: BusDaemon.path, arguments: [0: "org.bluez"]), handler: record)
        return recorder
    }

    /// Everything recorded so far.
    var all: [Recorded] { storage.withLock { $0 } }

    /// How many signals have been recorded (a mark to look after).
    var count: Int { storage.withLock { $0.count } }

    /// Signals recorded after `mark`.
    func since(_ mark: Int) -> [Recorded] { storage.withLock { Array($0.dropFirst(mark)) } }

    /// Waits for the first signal after `mark` that satisfies `predicate`, at most `timeout`
    /// (``Duration/scaled``); returns its index.
    ///
    /// The default deadline is long, as ``eventually(within:_:)``'s: what a test tells apart
    /// is "soon" from "never", and a loaded machine can hold the mock up for seconds.
    @discardableResult
    func wait(
        after mark: Int = 0, timeout: Duration = .seconds(20), _ what: String = "signal",
        where predicate: @escaping @Sendable (Recorded) -> Bool
    ) async throws -> (index: Int, signal: Recorded) {
        let clock = ContinuousClock()
        let deadline = clock.now + timeout.scaled
        while true {
            let found = storage.withLock { signals -> (Int, Recorded)? in
                guard signals.count > mark else { return nil }
                for index in mark..<signals.count where predicate(signals[index]) { return (index, signals[index]) }
                return nil
            }
            if let found { return found }
            guard clock.now < deadline else {
                throw TestSupportError("no \(what) within \(timeout.scaled); got: \(since(mark).map(\.description))")
            }
            try await Task.sleep(for: .milliseconds(2))
        }
    }

    /// Waits for a `PropertiesChanged` of `interface` at `path` that changes `name`.
    @discardableResult
    func waitChange(
        after mark: Int = 0, _ path: ObjectPath, _ interface: String, _ name: String, timeout: Duration = .seconds(20)
    ) async throws -> (index: Int, signal: Recorded) {
        try await wait(after: mark, timeout: timeout, "\(name) change on \(path)") {
            $0.path == path && $0.changedInterface == interface && $0.changedNames.contains(name)
        }
    }
}
