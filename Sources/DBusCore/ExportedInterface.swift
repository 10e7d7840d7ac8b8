/// An interface to serve on an object: its methods, properties and signals.
public struct ExportedInterface: Sendable {
    /// The interface name, such as `org.bluez.Adapter1`.
    public var name: String
    /// Methods by name.
    public var methods: [String: ExportedMethod]
    /// Properties in the order they are reported.
    public var properties: [ExportedProperty]
    /// Signals, for introspection: name → argument signature.
    public var signals: [String: Signature]
    /// Called for `Properties.Set` on a writable property, before the value is stored.
    /// Throw ``DBusError`` to refuse; the server stores the value and emits
    /// `PropertiesChanged` only when it returns.
    public var setter: (@Sendable (_ property: String, _ value: DBusValue, _ call: MethodCall) async throws -> Void)?

    /// Creates an interface.
    public init(
        name: String, methods: [ExportedMethod] = [], properties: [ExportedProperty] = [],
        signals: [String: Signature] = [:],
        setter: (@Sendable (String, DBusValue, MethodCall) async throws -> Void)? = nil
    ) {
        self.name = name
        self.methods = Dictionary(methods.map { ($0.name, $0) }, uniquingKeysWith: { $1 })
        self.properties = properties
        self.signals = signals
        self.setter = setter
    }
}

/// A served method.
public struct ExportedMethod: Sendable {
    /// The method name.
    public var name: String
    /// The argument signature callers must send (a mismatch gets `InvalidArgs`);
    /// nil accepts any arguments.
    public var inSignature: Signature?
    /// The reply signature (for introspection).
    public var outSignature: Signature
    /// Produces the reply's arguments; throw ``DBusError`` for an error reply.
    public var handler: @Sendable (MethodCall) async throws -> [DBusValue]

    /// Creates a method.
    public init(
        _ name: String, in inSignature: Signature? = .empty, out outSignature: Signature = .empty,
        handler: @escaping @Sendable (MethodCall) async throws -> [DBusValue]
    ) {
        self.name = name
        self.inSignature = inSignature
        self.outSignature = outSignature
        self.handler = handler
    }
}

/// A served property.
public struct ExportedProperty: Sendable {
    /// The property name.
    public var name: String
    /// The current value.
    public var value: DBusValue
    /// Whether `Properties.Set` may change it.
    public var writable: Bool

    /// Creates a property.
    public init(_ name: String, _ value: DBusValue, writable: Bool = false) {
        self.name = name
        self.value = value
        self.writable = writable
    }
}

/// An incoming method call, as a handler sees it.
public struct MethodCall: Sendable {
    /// The call message.
    public let message: DBusMessage
    /// The caller's unique bus name.
    public var sender: String { message.sender ?? "" }
    /// The object path called.
    public var path: ObjectPath { message.path ?? .root }
    /// The decoded arguments.
    public let arguments: [DBusValue]

    /// The argument at `index` as `T`, or `InvalidArgs`.
    public func argument<T: DBusConvertible>(_ index: Int, as type: T.Type = T.self) throws -> T {
        guard arguments.indices.contains(index) else {
            throw DBusError(name: DBusError.Name.invalidArgs, message: "missing argument \(index)")
        }
        do {
            return try arguments[index].decode(T.self)
        } catch {
            throw DBusError(name: DBusError.Name.invalidArgs, message: "argument \(index): \(error)")
        }
    }
}
