extension JSONValue {
    /// Any `Encodable` as a JSON value, in the shape `JSONEncoder` gives it
    /// (so `JSONDecoder` reads it back). This, and `compactJSON` to write the
    /// value, is how Hoist writes all of its JSON: Foundation's encoder cannot
    /// keep a server's number text, and checks every value for the types it
    /// treats apart (Date, Data, URL, Decimal) with dynamic casts, which the
    /// journal pays for per task. Nothing here needs those: a `Date` comes
    /// out as its `Double`, the same as `JSONEncoder`'s default strategy.
    public init(encoding value: some Encodable) throws {
        self = try EncodingNode.slot(encoding: value).value
    }
}

/// A container being encoded: containers are filled in after they are
/// handed out, so they live in a reference. Scalars go straight into their
/// container's slot, without a node of their own.
private final class EncodingNode {
    enum Slot {
        case value(JSONValue)
        case node(EncodingNode)

        var value: JSONValue {
            switch self {
            case .value(let value): return value
            case .node(let node): return node.value
            }
        }
    }

    enum Kind {
        case empty
        case scalar(JSONValue)
        case object([(key: String, slot: Slot)])
        case array([Slot])
    }

    var kind = Kind.empty

    var value: JSONValue {
        switch kind {
        case .empty: return .object([])
        case .scalar(let value): return value
        case .object(let members): return .object(members.map { .init($0.key, $0.slot.value) })
        case .array(let items): return .array(items.map(\.value))
        }
    }

    /// Synthesized `Codable` never encodes a key twice, so keys are not searched.
    func add(key: String, _ slot: Slot) {
        if case .object(var members) = kind {
            kind = .empty  // keeps `members` unique while it grows
            members.append((key, slot))
            kind = .object(members)
        } else {
            kind = .object([(key, slot)])
        }
    }

    func append(_ slot: Slot) {
        if case .array(var items) = kind {
            kind = .empty
            items.append(slot)
            kind = .array(items)
        } else {
            kind = .array([slot])
        }
    }

    /// A new container in `parent`'s slot.
    static func child(adding add: (Slot) -> Void) -> EncodingNode {
        let node = EncodingNode()
        add(.node(node))
        return node
    }

    static func number(_ value: some BinaryInteger) -> Slot { .value(.number(String(value))) }

    static func number(_ value: some BinaryFloatingPoint & LosslessStringConvertible) throws -> Slot {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(codingPath: [], debugDescription: "JSON has no \(value)"))
        }
        return .value(.number(value.description))
    }

    /// Encodes a nested value: a scalar (an enum's raw value, say) needs no node.
    static func slot(encoding value: some Encodable) throws -> Slot {
        let node = EncodingNode()
        try value.encode(to: ValueEncoder(node: node))
        if case .scalar(let scalar) = node.kind { return .value(scalar) }
        return .node(node)
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

/// The scalar encodes that unkeyed and single-value containers share, and
/// that a keyed container makes through `KeyedSlot`: each puts one slot.
private protocol SlotWriter {
    mutating func put(_ slot: EncodingNode.Slot)
}

extension SlotWriter {
    mutating func encodeNil() throws { put(.value(.null)) }
    mutating func encode(_ value: Bool) throws { put(.value(.bool(value))) }
    mutating func encode(_ value: String) throws { put(.value(.string(value))) }
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
    mutating func encode(_ value: some Encodable) throws { put(try EncodingNode.slot(encoding: value)) }
}

/// One key of a keyed container.
private struct KeyedSlot: SlotWriter {
    let node: EncodingNode
    let key: String

    func put(_ slot: EncodingNode.Slot) { node.add(key: key, slot) }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let node: EncodingNode
    /// Not tracked: the only error is a non-finite number, and paths cost an allocation per value.
    var codingPath: [any CodingKey] { [] }

    private func at(_ key: Key) -> KeyedSlot { KeyedSlot(node: node, key: key.stringValue) }

    mutating func encodeNil(forKey key: Key) throws { var slot = at(key); try slot.encodeNil() }
    mutating func encode(_ value: Bool, forKey key: Key) throws { var slot = at(key); try slot.encode(value) }
    mutating func encode(_ value: String, forKey key: Key) throws { var slot = at(key); try slot.encode(value) }
    mutating func encode(_ value: Double, forKey key: Key) throws { var slot = at(key); try slot.encode(value) }
    mutating func encode(_ value: Float, forKey key: Key) throws { var slot = at(key); try slot.encode(value) }
    mutating func encode(_ value: Int, forKey key: Key) throws { var slot = at(key); try slot.encode(value) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { var slot = at(key); try slot.encode(value) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { var slot = at(key); try slot.encode(value) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { var slot = at(key); try slot.encode(value) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { var slot = at(key); try slot.encode(value) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { var slot = at(key); try slot.encode(value) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { var slot = at(key); try slot.encode(value) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { var slot = at(key); try slot.encode(value) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { var slot = at(key); try slot.encode(value) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { var slot = at(key); try slot.encode(value) }
    mutating func encode(_ value: some Encodable, forKey key: Key) throws { var slot = at(key); try slot.encode(value) }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type, forKey key: Key
    ) -> KeyedEncodingContainer<NestedKey> {
        ValueEncoder(node: .child(adding: at(key).put)).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        ValueEncoder(node: .child(adding: at(key).put)).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { superEncoder(forKey: Key(stringValue: "super")!) }

    mutating func superEncoder(forKey key: Key) -> any Encoder { ValueEncoder(node: .child(adding: at(key).put)) }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer, SlotWriter {
    let node: EncodingNode
    /// Not tracked: the only error is a non-finite number, and paths cost an allocation per value.
    var codingPath: [any CodingKey] { [] }
    private(set) var count = 0

    init(node: EncodingNode) {
        self.node = node
    }

    mutating func put(_ slot: EncodingNode.Slot) {
        node.append(slot)
        count += 1
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy keyType: NestedKey.Type
    ) -> KeyedEncodingContainer<NestedKey> {
        ValueEncoder(node: .child { put($0) }).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        ValueEncoder(node: .child { put($0) }).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { ValueEncoder(node: .child { put($0) }) }
}

private struct SingleValueContainer: SingleValueEncodingContainer, SlotWriter {
    let node: EncodingNode
    /// Not tracked: the only error is a non-finite number, and paths cost an allocation per value.
    var codingPath: [any CodingKey] { [] }

    func put(_ slot: EncodingNode.Slot) {
        switch slot {
        case .value(let value): node.kind = .scalar(value)
        case .node(let child): node.kind = child.kind
        }
    }
}
