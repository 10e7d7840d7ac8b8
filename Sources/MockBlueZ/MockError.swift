/// An error of the mock's own control surface (bad device, bad fault), with a D-Bus name.
public struct MockError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The D-Bus error name, such as `org.blectl.Mock.Error.UnknownDevice`.
    public var name: String
    /// What went wrong.
    public var message: String

    /// Creates an error.
    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }

    /// The name and the message, as D-Bus tools print an error.
    public var description: String { "\(name): \(message)" }

    static func unknownAdapter(_ name: String) -> MockError {
        MockError(name: "org.blectl.Mock.Error.UnknownAdapter", message: "no adapter \(name)")
    }

    static func unknownDevice(_ address: String) -> MockError {
        MockError(name: "org.blectl.Mock.Error.UnknownDevice", message: "no peripheral \(address)")
    }

    static func adapterExists(_ message: String) -> MockError {
        MockError(name: "org.blectl.Mock.Error.AdapterExists", message: message)
    }

    static func invalidAddress(_ text: String) -> MockError {
        MockError(
            name: "org.freedesktop.DBus.Error.InvalidArgs", message: "'\(text)' is not an address XX:XX:XX:XX:XX:XX")
    }

    static let notRunning = MockError(name: "org.blectl.Mock.Error.NotRunning", message: "bluetoothd is not running")
}
