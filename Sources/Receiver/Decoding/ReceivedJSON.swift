/// A JSON document, as echoed back by the receiver for `application/json` request bodies.
///
/// Numbers are `Double`, so integers above 2^53 lose precision; object key order is not kept.
public indirect enum ReceivedJSON: Codable, Sendable, Equatable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case null
    case array([ReceivedJSON])
    case object([String: ReceivedJSON])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([ReceivedJSON].self) {
            self = .array(value)
        } else if let value = try? container.decode([String: ReceivedJSON].self) {
            self = .object(value)
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a JSON value")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .null: try container.encodeNil()
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The member `key` of an object, or `nil`.
    public subscript(key: String) -> ReceivedJSON? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The element at `index` of an array, or `nil`.
    public subscript(index: Int) -> ReceivedJSON? {
        if case .array(let elements) = self, elements.indices.contains(index) { return elements[index] }
        return nil
    }
}
