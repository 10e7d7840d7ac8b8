/// A value being encoded.
///
/// Containers hold a reference to their node rather than a copy, so that a type asking
/// the same encoder twice for a keyed container (``Event`` writes `type`, then its
/// payload writes the other fields) fills one object, as with Foundation's encoder.
final class EncodingNode {
    private var leaf: JSONValue?
    private var members: [String: EncodingNode]?
    private var elements: [EncodingNode]?

    /// The finished value; nil when nothing was encoded.
    var value: JSONValue? {
        if let members { return .object(members.mapValues { $0.value ?? .object([:]) }) }
        if let elements { return .array(elements.map { $0.value ?? .object([:]) }) }
        return leaf
    }

    /// How many elements an unkeyed container has written.
    var count: Int { elements?.count ?? 0 }

    func set(_ value: JSONValue) {
        (leaf, members, elements) = (value, nil, nil)
    }

    /// The node of a new (or replaced) member, making this node an object if need be.
    func member(_ key: String) -> EncodingNode {
        if members == nil { (leaf, members, elements) = (nil, [:], nil) }
        let node = EncodingNode()
        members![key] = node
        return node
    }

    /// Makes this node an object, keeping the members it has.
    func makeObject() {
        if members == nil { (leaf, members, elements) = (nil, [:], nil) }
    }

    /// Makes this node an array, keeping the elements it has.
    func makeArray() {
        if elements == nil { (leaf, members, elements) = (nil, nil, []) }
    }

    /// The node of a new last element.
    func append() -> EncodingNode {
        makeArray()
        let node = EncodingNode()
        elements!.append(node)
        return node
    }
}

/// How an encoder writes an optional that is nil (in a synthesized or `encodeIfPresent` field).
public enum AbsentOptionals: Sendable {
    /// As `null`: the protocol's rule, so a client sees every field, and `null` says "not known".
    case null
    /// Left out, as Foundation's `JSONEncoder` does.
    case omitted
}

/// An `Encoder` that builds a ``JSONValue``; it is also its own single-value container.
struct JSONValueEncoder: Encoder, SingleValueEncodingContainer {
    let node: EncodingNode
    let codingPath: [any CodingKey]
    let absent: AbsentOptionals
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// Encodes `value` as a JSON value.
    static func encode<T: Encodable>(_ value: T, absent: AbsentOptionals = .null) throws -> JSONValue {
        let node = EncodingNode()
        try value.encode(to: JSONValueEncoder(node: node, codingPath: [], absent: absent))
        guard let result = node.value else {
            throw EncodingError.invalidValue(
                value, EncodingError.Context(codingPath: [], debugDescription: "Top-level \(T.self) encoded nothing."))
        }
        return result
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.makeObject()
        return KeyedEncodingContainer(KeyedContainer(node: node, codingPath: codingPath, absent: absent))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.makeArray()
        return UnkeyedContainer(node: node, codingPath: codingPath, absent: absent)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    func encodeNil() { node.set(.null) }
    func encode(_ value: Bool) { node.set(.bool(value)) }
    func encode(_ value: String) { node.set(.string(value)) }
    func encode(_ value: Double) throws { node.set(try .number(value, codingPath: codingPath)) }
    func encode(_ value: Float) throws { node.set(try .number(value, codingPath: codingPath)) }
    func encode(_ value: Int) { node.set(.number(value)) }
    func encode(_ value: Int8) { node.set(.number(value)) }
    func encode(_ value: Int16) { node.set(.number(value)) }
    func encode(_ value: Int32) { node.set(.number(value)) }
    func encode(_ value: Int64) { node.set(.number(value)) }
    func encode(_ value: UInt) { node.set(.number(value)) }
    func encode(_ value: UInt8) { node.set(.number(value)) }
    func encode(_ value: UInt16) { node.set(.number(value)) }
    func encode(_ value: UInt32) { node.set(.number(value)) }
    func encode(_ value: UInt64) { node.set(.number(value)) }
    func encode<T: Encodable>(_ value: T) throws { try value.encode(to: self) }

    /// Writes the members of an object; every value goes through a child encoder.
    private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
        let node: EncodingNode
        let codingPath: [any CodingKey]
        let absent: AbsentOptionals

        private func child(_ key: some CodingKey) -> JSONValueEncoder {
            JSONValueEncoder(node: node.member(key.stringValue), codingPath: codingPath + [key], absent: absent)
        }

        func encodeNil(forKey key: Key) { child(key).encodeNil() }
        func encode(_ value: Bool, forKey key: Key) { child(key).encode(value) }
        func encode(_ value: String, forKey key: Key) { child(key).encode(value) }
        func encode(_ value: Double, forKey key: Key) throws { try child(key).encode(value) }
        func encode(_ value: Float, forKey key: Key) throws { try child(key).encode(value) }
        func encode(_ value: Int, forKey key: Key) { child(key).encode(value) }
        func encode(_ value: Int8, forKey key: Key) { child(key).encode(value) }
        func encode(_ value: Int16, forKey key: Key) { child(key).encode(value) }
        func encode(_ value: Int32, forKey key: Key) { child(key).encode(value) }
        func encode(_ value: Int64, forKey key: Key) { child(key).encode(value) }
        func encode(_ value: UInt, forKey key: Key) { child(key).encode(value) }
        func encode(_ value: UInt8, forKey key: Key) { child(key).encode(value) }
        func encode(_ value: UInt16, forKey key: Key) { child(key).encode(value) }
        func encode(_ value: UInt32, forKey key: Key) { child(key).encode(value) }
        func encode(_ value: UInt64, forKey key: Key) { child(key).encode(value) }
        func encode<T: Encodable>(_ value: T, forKey key: Key) throws { try child(key).encode(value) }

        // Synthesized `Codable` calls these for optionals: `null` or nothing, as `absent`
        // says. A field that must always be left out when nil uses
        // ``KeyedEncodingContainer/encodeUnlessNil(_:forKey:)``.
        func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try present(value, key) }
        func encodeIfPresent(_ value: String?, forKey key: Key) throws { try present(value, key) }
        func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try present(value, key) }
        func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try present(value, key) }
        func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try present(value, key) }
        func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try present(value, key) }
        func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try present(value, key) }
        func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try present(value, key) }
        func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try present(value, key) }
        func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try present(value, key) }
        func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try present(value, key) }
        func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try present(value, key) }
        func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try present(value, key) }
        func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try present(value, key) }
        func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws { try present(value, key) }

        private func present<T: Encodable>(_ value: T?, _ key: Key) throws {
            guard let value else {
                if absent == .null { child(key).encodeNil() }
                return
            }
            try child(key).encode(value)
        }

        func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
            -> KeyedEncodingContainer<NestedKey>
        {
            child(key).container(keyedBy: keyType)
        }

        func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
            child(key).unkeyedContainer()
        }

        func superEncoder() -> any Encoder { child(JSONKey.super) }
        func superEncoder(forKey key: Key) -> any Encoder { child(key) }
    }

    /// Appends the elements of an array; every value goes through a child encoder.
    private struct UnkeyedContainer: UnkeyedEncodingContainer {
        let node: EncodingNode
        let codingPath: [any CodingKey]
        let absent: AbsentOptionals
        var count: Int { node.count }

        private func next() -> JSONValueEncoder {
            let key = JSONKey(intValue: count)
            return JSONValueEncoder(node: node.append(), codingPath: codingPath + [key], absent: absent)
        }

        func encodeNil() { next().encodeNil() }
        func encode(_ value: Bool) { next().encode(value) }
        func encode(_ value: String) { next().encode(value) }
        func encode(_ value: Double) throws { try next().encode(value) }
        func encode(_ value: Float) throws { try next().encode(value) }
        func encode(_ value: Int) { next().encode(value) }
        func encode(_ value: Int8) { next().encode(value) }
        func encode(_ value: Int16) { next().encode(value) }
        func encode(_ value: Int32) { next().encode(value) }
        func encode(_ value: Int64) { next().encode(value) }
        func encode(_ value: UInt) { next().encode(value) }
        func encode(_ value: UInt8) { next().encode(value) }
        func encode(_ value: UInt16) { next().encode(value) }
        func encode(_ value: UInt32) { next().encode(value) }
        func encode(_ value: UInt64) { next().encode(value) }
        func encode<T: Encodable>(_ value: T) throws { try next().encode(value) }

        func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type)
            -> KeyedEncodingContainer<NestedKey>
        {
            next().container(keyedBy: keyType)
        }

        func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { next().unkeyedContainer() }
        func superEncoder() -> any Encoder { next() }
    }
}

extension KeyedEncodingContainer {
    /// Writes `value` when there is one and leaves the key out otherwise, whatever the
    /// encoder does with `encodeIfPresent`.
    mutating func encodeUnlessNil<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) }
    }
}
