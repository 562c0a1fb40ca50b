extension JSONValue {
    /// Any `Encodable` as a JSON value, in the shape `JSONEncoder` gives it
    /// (so `JSONDecoder` reads it back), without Foundation's encoder: that
    /// checks every value for the types it treats apart (Date, Data, URL,
    /// Decimal) with dynamic casts, and was most of what the journal cost per
    /// task. Nothing here needs those: a `Date` would come out as its
    /// `Double`, the same as `JSONEncoder`'s default strategy.
    public init(encoding value: some Encodable) throws {
        self = try EncodingNode.encoding(value).value
    }
}

/// A value being encoded: containers are filled in after they are handed
/// out, so they live in a reference.
private final class EncodingNode {
    enum Kind {
        case empty
        case scalar(JSONValue)
        case object([(key: String, node: EncodingNode)])
        case array([EncodingNode])
    }

    var kind = Kind.empty

    var value: JSONValue {
        switch kind {
        case .empty: return .object([])
        case .scalar(let value): return value
        case .object(let members): return .object(members.map { .init($0.key, $0.node.value) })
        case .array(let items): return .array(items.map(\.value))
        }
    }

    /// Synthesized `Codable` never encodes a key twice, so keys are not searched.
    func add(key: String, _ node: EncodingNode) {
        if case .object(var members) = kind {
            kind = .empty  // keeps `members` unique while it grows
            members.append((key, node))
            kind = .object(members)
        } else {
            kind = .object([(key, node)])
        }
    }

    func append(_ node: EncodingNode) {
        if case .array(var items) = kind {
            kind = .empty
            items.append(node)
            kind = .array(items)
        } else {
            kind = .array([node])
        }
    }

    static func scalar(_ value: JSONValue) -> EncodingNode {
        let node = EncodingNode()
        node.kind = .scalar(value)
        return node
    }

    static func number(_ value: some BinaryInteger) -> EncodingNode { scalar(.number(String(value))) }

    static func number(_ value: some BinaryFloatingPoint & LosslessStringConvertible) throws -> EncodingNode {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "JSON has no \(value)"))
        }
        return scalar(.number(value.description))
    }

    /// Encodes a nested value into a new node.
    static func encoding(_ value: some Encodable) throws -> EncodingNode {
        let node = EncodingNode()
        try value.encode(to: ValueEncoder(node: node))
        return node
    }
}

private struct ValueEncoder: Encoder {
    let node: EncodingNode
    /// Not tracked: the only error is a non-finite number, and paths cost an allocation per value.
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if case .object = node.kind {} else { node.kind = .object([]) }
        return KeyedEncodingContainer(KeyedContainer(node: node))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array = node.kind {} else { node.kind = .array([]) }
        return UnkeyedContainer(node: node)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(node: node)
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: EncodingNode
    /// Not tracked: the only error is a non-finite number, and paths cost an allocation per value.
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil(forKey key: Key) throws { node.add(key: key.stringValue, .scalar(.null)) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { node.add(key: key.stringValue, .scalar(.bool(value))) }
    mutating func encode(_ value: String, forKey key: Key) throws { node.add(key: key.stringValue, .scalar(.string(value))) }
    mutating func encode(_ value: Double, forKey key: Key) throws { node.add(key: key.stringValue, try .number(value)) }
    mutating func encode(_ value: Float, forKey key: Key) throws { node.add(key: key.stringValue, try .number(value)) }
    mutating func encode(_ value: Int, forKey key: Key) throws { node.add(key: key.stringValue, .number(value)) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { node.add(key: key.stringValue, .number(value)) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { node.add(key: key.stringValue, .number(value)) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { node.add(key: key.stringValue, .number(value)) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { node.add(key: key.stringValue, .number(value)) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { node.add(key: key.stringValue, .number(value)) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { node.add(key: key.stringValue, .number(value)) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { node.add(key: key.stringValue, .number(value)) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { node.add(key: key.stringValue, .number(value)) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { node.add(key: key.stringValue, .number(value)) }

    mutating func encode(_ value: some Encodable, forKey key: Key) throws {
        node.add(key: key.stringValue, try .encoding(value))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let child = EncodingNode()
        node.add(key: key.stringValue, child)
        return ValueEncoder(node: child).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let child = EncodingNode()
        node.add(key: key.stringValue, child)
        return ValueEncoder(node: child).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { superEncoder(forKey: Key(stringValue: "super")!) }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        let child = EncodingNode()
        node.add(key: key.stringValue, child)
        return ValueEncoder(node: child)
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer {
    let node: EncodingNode
    /// Not tracked: the only error is a non-finite number, and paths cost an allocation per value.
    var codingPath: [any CodingKey] { [] }
    private(set) var count = 0

    init(node: EncodingNode) {
        self.node = node
    }

    private mutating func append(_ child: EncodingNode) {
        node.append(child)
        count += 1
    }

    mutating func encodeNil() throws { append(.scalar(.null)) }
    mutating func encode(_ value: Bool) throws { append(.scalar(.bool(value))) }
    mutating func encode(_ value: String) throws { append(.scalar(.string(value))) }
    mutating func encode(_ value: Double) throws { append(try .number(value)) }
    mutating func encode(_ value: Float) throws { append(try .number(value)) }
    mutating func encode(_ value: Int) throws { append(.number(value)) }
    mutating func encode(_ value: Int8) throws { append(.number(value)) }
    mutating func encode(_ value: Int16) throws { append(.number(value)) }
    mutating func encode(_ value: Int32) throws { append(.number(value)) }
    mutating func encode(_ value: Int64) throws { append(.number(value)) }
    mutating func encode(_ value: UInt) throws { append(.number(value)) }
    mutating func encode(_ value: UInt8) throws { append(.number(value)) }
    mutating func encode(_ value: UInt16) throws { append(.number(value)) }
    mutating func encode(_ value: UInt32) throws { append(.number(value)) }
    mutating func encode(_ value: UInt64) throws { append(.number(value)) }

    mutating func encode(_ value: some Encodable) throws {
        append(try .encoding(value))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let child = EncodingNode()
        append(child)
        return ValueEncoder(node: child).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let child = EncodingNode()
        append(child)
        return ValueEncoder(node: child).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        let child = EncodingNode()
        append(child)
        return ValueEncoder(node: child)
    }
}

private struct SingleValueContainer: SingleValueEncodingContainer {
    let node: EncodingNode
    /// Not tracked: the only error is a non-finite number, and paths cost an allocation per value.
    var codingPath: [any CodingKey] { [] }

    mutating func encodeNil() throws { node.kind = .scalar(.null) }
    mutating func encode(_ value: Bool) throws { node.kind = .scalar(.bool(value)) }
    mutating func encode(_ value: String) throws { node.kind = .scalar(.string(value)) }
    mutating func encode(_ value: Double) throws { node.kind = try EncodingNode.number(value).kind }
    mutating func encode(_ value: Float) throws { node.kind = try EncodingNode.number(value).kind }
    mutating func encode(_ value: Int) throws { node.kind = EncodingNode.number(value).kind }
    mutating func encode(_ value: Int8) throws { node.kind = EncodingNode.number(value).kind }
    mutating func encode(_ value: Int16) throws { node.kind = EncodingNode.number(value).kind }
    mutating func encode(_ value: Int32) throws { node.kind = EncodingNode.number(value).kind }
    mutating func encode(_ value: Int64) throws { node.kind = EncodingNode.number(value).kind }
    mutating func encode(_ value: UInt) throws { node.kind = EncodingNode.number(value).kind }
    mutating func encode(_ value: UInt8) throws { node.kind = EncodingNode.number(value).kind }
    mutating func encode(_ value: UInt16) throws { node.kind = EncodingNode.number(value).kind }
    mutating func encode(_ value: UInt32) throws { node.kind = EncodingNode.number(value).kind }
    mutating func encode(_ value: UInt64) throws { node.kind = EncodingNode.number(value).kind }

    mutating func encode(_ value: some Encodable) throws {
        try value.encode(to: ValueEncoder(node: node))
    }
}
