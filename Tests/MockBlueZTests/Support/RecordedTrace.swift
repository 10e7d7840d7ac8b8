import Foundation
import TestSupport

/// A real BlueZ session recorded by the e2e rig and normalised by `Tests/E2E/traces.py`
/// (`make traces`): one JSON object per message, gzipped, in `Tests/Fixtures/traces/`.
struct RecordedTrace {
    /// The session of `shared/docs/traces` (a python central on hci1, bluetoothd 5.66).
    static let session = "real-bluez-5.66-central-session"
    /// The real-BlueZ suite's default scenarios with blectld as the central (hci0).
    static let e2e = "real-bluez-5.66-e2e"
    /// Each recording's central adapter and Thermometer, as its paths name them.
    static let paths: [String: (adapter: String, device: String)] = [
        session: ("/org/bluez/hci1", "/org/bluez/hci1/dev_hci0"),
        e2e: ("/org/bluez/hci0", "/org/bluez/hci0/dev_hci1"),
    ]

    let messages: [Message]

    /// Loads `Tests/Fixtures/traces/NAME.jsonl.gz`.
    static func load(_ name: String) async throws -> RecordedTrace {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Fixtures/traces/\(name).jsonl.gz").standardizedFileURL.path
        let (status, text, errors) = try await run("/bin/gzip", ["-dc", file])
        guard status == 0 else { throw TestSupportError("gzip -dc \(file): \(errors)") }
        var messages: [Message] = []
        for line in text.split(separator: "\n") {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            guard let message = Message(object) else { throw TestSupportError("\(name): a bad line: \(line)") }
            messages.append(message)
        }
        return RecordedTrace(messages: messages)
    }

    /// The interfaces and properties of `object`, the first time bluetoothd reported it in a
    /// reply to `GetManagedObjects` (with `where` true of it) or in `InterfacesAdded`.
    func interfaces(
        of object: String, in member: String, where accept: ([String: [(String, Value)]]) -> Bool = { _ in true }
    ) -> [(String, [(String, Value)])]? {
        for message in messages where message.from == "bluez" && message.member == member {
            let found: [(String, Value)]?
            if member == "InterfacesAdded" {
                found = message.args.first?.text == object ? message.args.dropFirst().first?.entries : nil
            } else {
                found = message.args.first?.entries.first { $0.0 == object }?.1.entries
            }
            guard let found else { continue }
            let interfaces = found.map { ($0.0, $0.1.entries) }
            if accept(Dictionary(interfaces, uniquingKeysWith: { a, _ in a })) { return interfaces }
        }
        return nil
    }

    /// One message as `traces.py` wrote it.
    struct Message {
        let kind: String
        let from: String
        let to: String
        let path: String
        let interface: String
        let member: String
        let replyTo: Int?
        let error: String?
        let args: [Value]

        init?(_ json: Any) {
            guard let object = json as? [String: Any], let kind = object["kind"] as? String,
                let args = object["args"] as? [Any]
            else { return nil }
            self.kind = kind
            from = object["from"] as? String ?? ""
            to = object["to"] as? String ?? ""
            path = object["path"] as? String ?? ""
            interface = object["interface"] as? String ?? ""
            member = object["member"] as? String ?? ""
            replyTo = object["reply_to"] as? Int
            error = object["error"] as? String
            self.args = args.compactMap(Value.init)
        }

        /// A `PropertiesChanged`'s interface, changed properties and invalidated names.
        var propertiesChanged: (interface: String, changed: [(String, Value)], invalidated: [String])? {
            guard member == "PropertiesChanged", args.count == 3, let interface = args[0].text else { return nil }
            return (interface, args[1].entries, args[2].items.compactMap(\.text))
        }
    }

    /// A value as `[signature, value]`; variants unwrapped on access. An empty array's
    /// element type is unknown to dbus-monitor: its signature is `a?`.
    struct Value {
        let signature: String
        let raw: Any

        init?(_ json: Any) {
            guard let pair = json as? [Any], pair.count == 2, let signature = pair[0] as? String else { return nil }
            if signature == "v" {
                guard let inner = Value(pair[1]) else { return nil }
                self = inner
            } else {
                self.signature = signature
                raw = pair[1]
            }
        }

        var text: String? { raw as? String }
        var bool: Bool? { raw as? Bool }
        var items: [Value] { (raw as? [Any])?.compactMap(Value.init) ?? [] }
        /// A dictionary's entries in order, keys as text.
        var entries: [(String, Value)] {
            items.compactMap { entry in
                let pair = entry.items
                guard pair.count == 2, let key = pair[0].text ?? (pair[0].raw as? NSNumber)?.stringValue else {
                    return nil
                }
                return (key, pair[1])
            }
        }

        /// Whether a live value's signature is this one (`a?` stands for any array).
        func matches(_ signature: String) -> Bool {
            self.signature == signature || (self.signature == "a?" && signature.hasPrefix("a"))
        }
    }
}
