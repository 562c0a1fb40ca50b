extension JSONValue {
    /// Any `Encodable` as a JSON value, in the shape `JSONEncoder` gives it
    /// (so `JSONDecoder` reads it back). This, and `compactJSON` to write the
    /// value, is how Hoist writes its state and results (journal, history,
    /// `--json` lines): Foundation's encoder cannot keep a server's number
    /// text or key order, and checks every value for the types it treats
    /// apart (Date, Data, URL, Decimal) with dynamic casts, which the journal
    /// pays for per task. Nothing here needs those: a `Date` comes out as its
    /// `Double`, as with `JSONEncoder`'s default.
    public init(encoding value: some Encodable) throws {
        self = try EncodingNode.encoding(value)
    }
}

/// A container being encoded. Values are stored as they come, as JSON
/// values; only a container handed out by `nestedContainer` or
/// `superEncoder`, which the caller may fill in later, is kept as a node
/// and put in its place when the value is taken.
private final class EncodingNode {
    enum Kind {
        case empty
        case scalar(JSONValue)
        case object([JSONValue.Member])
        case array([JSONValue])
    }

    var kind = Kind.empty
    /// Containers handed out, by their index in `kind`'s members or items.
    private var handedOut: [(index: Int, node: EncodingNode)] = []

    var value: JSONValue {
        switch kind {
        case .empty: return .object([])
        case .scalar(let value): return value
        case .object(var members):
            for (index, node) in handedOut { members[index].value = node.value }
            return .object(members)
        case .array(var items):
            for (index, node) in handedOut { items[index] = node.value }
            return .array(items)
        }
    }

    /// Synthesized `Codable` never encodes a key twice, so keys are not searched.
    func add(key: String, _ value: JSONValue) {
        if case .object(var members) = kind {
            kind = .empty  // keeps `members` unique while it grows
            members.append(.init(key, value))
            kind = .object(members)
        } else {
            kind = .object([.init(key, value)])
        }
    }

    func append(_ value: JSONValue) {
        if case .array(var items) = kind {
            kind = .empty
            items.append(value)
            kind = .array(items)
        } else {
            kind = .array([value])
        }
    }

    /// A new container, put in the place `put` makes for it.
    func child(putting put: (JSONValue) -> Void) -> EncodingNode {
        put(.null)
        let node = EncodingNode()
        switch kind {
        case .object(let members): handedOut.append((members.count - 1, node))
        case .array(let items): handedOut.append((items.count - 1, node))
        default: break
        }
        return node
    }

    static func number(_ value: some BinaryInteger) -> JSONValue { .number(String(value)) }

    static func number(_ value: some BinaryFloatingPoint & LosslessStringConvertible) throws -> JSONValue {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "JSON has no \(value)"))
        }
        return .number(value.description)
    }

    /// A nested value, encoded to its end before its container goes on.
    static func encoding(_ value: some Encodable) throws -> JSONValue {
        let node = EncodingNode()
        try value.encode(to: ValueEncoder(node: node))
        return node.value
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

/// The encodes that unkeyed and single-value containers share, and that a
/// keyed container makes through `KeyedSlot`: each puts one value.
private protocol SlotWriter {
    mutating func put(_ value: JSONValue)
}

extension SlotWriter {
    mutating func encodeNil() throws { put(.null) }
    mutating func encode(_ value: Bool) throws { put(.bool(value)) }
    mutating func encode(_ value: String) throws { put(.string(value)) }
    mutating func encode(_ value: Double) throws { put(try EncodingNode.number(value)) }
    mutating func encode(_ value: Float) throws { put(try EncodingNode.number(value)) }
    mutating func encode(_ value: Int) throws { put(EncodingNode.number(value)) }
    mutating func encode(_ value: Int8) throws { put(EncodingNode.number(value)) }
    mutating func encode(_ value: Int16) throws { put(EncodingNode.number(value)) }
    mutating func encode(_ value: Int32) throws { put(EncodingNode.number(value)) }
    mutating func encode(_ value: Int64) throws { put(EncodingNode.number(value)) }
    mutating func encode(_ value: UInt) throws { put(EncodingNode.number(value)) }
    mutating func encode(_ value: UInt8) throws { put(EncodingNode.number(value)) }
    mutating func encode(_ value: UInt16) throws { put(EncodingNode.number(value)) }
    mutating func encode(_ value: UInt32) throws { put(EncodingNode.number(value)) }
    mutating func encode(_ value: UInt64) throws { put(EncodingNode.number(value)) }
    mutating func encode(_ value: some Encodable) throws { put(try EncodingNode.encoding(value)) }
}

/// One key of a keyed container.
private struct KeyedSlot: SlotWriter {
    let node: EncodingNode
    let key: String

    func put(_ value: JSONValue) { node.add(key: key, value) }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: EncodingNode
    /// Not tracked: the only error is a non-finite number, and paths cost an allocation per value.
    var codingPath: [any CodingKey] { [] }

    private func at(_ key: Key) -> KeyedSlot { KeyedSlot(node: node, key: key.stringValue) }

    mutating func encodeNil(forKey key: Key) throws {
        var slot = at(key)
        try slot.encodeNil()
    }
    mutating func encode(_ value: Bool, forKey key: Key) throws {
        var slot = at(key)
        try slot.encode(value)
    }
    mutating func encode(_ value: String, forKey key: Key) throws {
        var slot = at(key)
        try slot.encode(value)
    }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        var slot = at(key)
        try slot.encode(value)
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        var slot = at(key)
        try slot.encode(value)
    }
    mutating func encode(_ value: Int, forKey key: Key) throws {
        var slot = at(key)
        try slot.encode(value)
    }
    mutating func encode(_ value: Int8, forKey key: Key) throws {
        var slot = at(key)
        try slot.encode(value)
    }
    mutating func encode(_ value: Int16, forKey key: Key) throws {
        var slot = at(key)
        try slot.encode(value)
    }
    mutating func encode(_ value: Int32, forKey key: Key) throws {
        var slot = at(key)
        try slot.encode(value)
    }
    mutating func encode(_ value: Int64, forKey key: Key) throws {
        var slot = at(key)
        try slot.encode(value)
    }
    mutating func encode(_ value: UInt, forKey key: Key) throws {
        var slot = at(key)
        try slot.encode(value)
    }
    mutating func encode(_ value: UInt8, forKey key: Key) throws {
        var slot = at(key)
        try slot.encode(value)
    }
    mutating func encode(_ value: UInt16, forKey key: Key) throws {
        var slot = at(key)
        try slot.encode(value)
    }
    mutating func encode(_ value: UInt32, forKey key: Key) throws {
        var slot = at(key)
        try slot.encode(value)
    }
    mutating func encode(_ value: UInt64, forKey key: Key) throws {
        var slot = at(key)
        try slot.encode(value)
    }
    mutating func encode(_ value: some Encodable, forKey key: Key) throws {
        var slot = at(key)
        try slot.encode(value)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        ValueEncoder(node: node.child(putting: at(key).put)).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        ValueEncoder(node: node.child(putting: at(key).put)).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { superEncoder(forKey: Key(stringValue: "super")!) }

    mutating func superEncoder(forKey key: Key) -> any Encoder { ValueEncoder(node: node.child(putting: at(key).put)) }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer, SlotWriter {
    let node: EncodingNode
    /// Not tracked: the only error is a non-finite number, and paths cost an allocation per value.
    var codingPath: [any CodingKey] { [] }
    private(set) var count = 0

    init(node: EncodingNode) {
        self.node = node
    }

    mutating func put(_ value: JSONValue) {
        node.append(value)
        count += 1
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        ValueEncoder(node: node.child { put($0) }).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        ValueEncoder(node: node.child { put($0) }).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { ValueEncoder(node: node.child { put($0) }) }
}

private struct SingleValueContainer: SingleValueEncodingContainer, SlotWriter {
    let node: EncodingNode
    /// Not tracked: the only error is a non-finite number, and paths cost an allocation per value.
    var codingPath: [any CodingKey] { [] }

    func put(_ value: JSONValue) { node.kind = .scalar(value) }
}
