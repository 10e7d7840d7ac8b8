/// Builds `Introspect` XML for a served object.
enum Introspection {
    static func xml(interfaces: [ExportedInterface], isManager: Bool, children: [String]) -> String {
        var out = [
            "<!DOCTYPE node PUBLIC \"-//freedesktop//DTD D-BUS Object Introspection 1.0//EN\"",
            "\"http://www.freedesktop.org/standards/dbus/1.0/introspect.dtd\">",
            "<node>",
            "<interface name=\"org.freedesktop.DBus.Introspectable\">"
                + "<method name=\"Introspect\"><arg name=\"xml\" type=\"s\" direction=\"out\"/></method></interface>",
        ]
        if !interfaces.isEmpty { out.append(propertiesInterface) }
        if isManager { out.append(objectManagerInterface) }
        for interface in interfaces { out.append(describe(interface)) }
        for child in children { out.append("<node name=\"\(child)\"/>") }
        out.append("</node>")
        return out.joined(separator: "\n")
    }

    private static func describe(_ interface: ExportedInterface) -> String {
        var lines = ["<interface name=\"\(interface.name)\">"]
        for method in interface.methods.values.sorted(by: { $0.name < $1.name }) {
            let args = arguments(method.inSignature ?? .empty, "in") + arguments(method.outSignature, "out")
            lines.append("<method name=\"\(method.name)\">\(args)</method>")
        }
        for (name, signature) in interface.signals.sorted(by: { $0.key < $1.key }) {
            lines.append("<signal name=\"\(name)\">\(arguments(signature, nil))</signal>")
        }
        for property in interface.properties {
            let access = property.writable ? "readwrite" : "read"
            lines.append(
                "<property name=\"\(property.name)\" type=\"\(property.value.signatureText)\" access=\"\(access)\"/>")
        }
        lines.append("</interface>")
        return lines.joined(separator: "\n")
    }

    private static func arguments(_ signature: Signature, _ direction: String?) -> String {
        completeTypes(signature.rawValue).map { type in
            let dir = direction.map { " direction=\"\($0)\"" } ?? ""
            return "<arg type=\"\(type)\"\(dir)/>"
        }.joined()
    }

    /// Splits a signature into its complete types (`sa{sv}` → `s`, `a{sv}`).
    static func completeTypes(_ signature: String) -> [String] {
        var types: [String] = []
        var current = ""
        var depth = 0
        for character in signature {
            current.append(character)
            switch character {
            case "(", "{": depth += 1
            case ")", "}": depth -= 1
            default: break
            }
            if depth == 0, character != "a" {
                types.append(current)
                current = ""
            }
        }
        return types
    }

    private static let propertiesInterface = """
        <interface name="org.freedesktop.DBus.Properties">\
        <method name="Get"><arg name="interface" type="s" direction="in"/><arg name="name" type="s" direction="in"/>\
        <arg name="value" type="v" direction="out"/></method>\
        <method name="Set"><arg name="interface" type="s" direction="in"/><arg name="name" type="s" direction="in"/>\
        <arg name="value" type="v" direction="in"/></method>\
        <method name="GetAll"><arg name="interface" type="s" direction="in"/>\
        <arg name="properties" type="a{sv}" direction="out"/></method>\
        <signal name="PropertiesChanged"><arg name="interface" type="s"/><arg name="changed_properties" type="a{sv}"/>\
        <arg name="invalidated_properties" type="as"/></signal></interface>
        """

    private static let objectManagerInterface = """
        <interface name="org.freedesktop.DBus.ObjectManager">\
        <method name="GetManagedObjects"><arg name="objects" type="a{oa{sa{sv}}}" direction="out"/></method>\
        <signal name="InterfacesAdded"><arg name="object" type="o"/><arg name="interfaces" type="a{sa{sv}}"/></signal>\
        <signal name="InterfacesRemoved"><arg name="object" type="o"/><arg name="interfaces" type="as"/></signal>\
        </interface>
        """
}
