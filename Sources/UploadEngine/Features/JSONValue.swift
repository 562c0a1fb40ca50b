import WireRules

/// A decoded JSON document that keeps the server's key order and number
/// spelling, so the UI can show it as the server wrote it.
public enum JSONValue: Sendable, Hashable {
    case object([Member])
    case array([JSONValue])
    case string(String)
    /// The number's literal text, e.g. "0", "-1.5e3": no precision is lost.
    case number(String)
    case bool(Bool)
    case null

    public struct Member: Sendable, Hashable {
        public var key: String
        public var value: JSONValue

        public init(_ key: String, _ value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// The value at a dotted key path such as `data.RETCODE` or `items.0.id`.
    public subscript(path path: String) -> JSONValue? {
        var current: JSONValue? = self
        for component in path.split(separator: ".", omittingEmptySubsequences: false) {
            switch current {
            case .object(let members):
                current = members.last(where: { $0.key == component })?.value
            case .array(let items):
                guard let index = Int(component), items.indices.contains(index) else { return nil }
                current = items[index]
            default:
                return nil
            }
        }
        return current
    }

    /// A scalar as text: strings without quotes, numbers as written,
    /// `true`/`false`/`null`. Containers give their compact JSON.
    public var text: String {
        switch self {
        case .string(let value): return value
        case .number(let literal): return literal
        case .bool(let flag): return flag ? "true" : "false"
        case .null: return "null"
        default: return compactJSON
        }
    }

    /// The value serialised as compact JSON. Written as UTF-8 bytes: it runs
    /// for every `--json` line and every history entry.
    public var compactJSON: String {
        String(decoding: compactJSONBytes, as: UTF8.self)
    }

    /// `compactJSON` as the UTF-8 bytes it is written as.
    public var compactJSONBytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(to: &out)
        return out
    }

    /// The compact JSON of an object of `members`, then of `written`
    /// members whose values are JSON written before, and last an array at
    /// `key` of values written before: a journal's snapshot, whose staging
    /// area is spliced in as it was written for its log, and whose tasks
    /// are encoded as the array is read.
    public static func compactJSONBytes(
        _ members: [Member], written: [(key: String, json: [UInt8])] = [], thenArrayAt key: String,
        ofWritten items: some Sequence<[UInt8]>
    ) -> [UInt8] {
        var out: [UInt8] = []
        // `items` is read once: the journal encodes each task as it is read.
        out.reserveCapacity(256 + written.reduce(0) { $0 + $1.json.count })
        out.append(UInt8(ascii: "{"))
        for member in members {
            writeMember(member, to: &out)
            out.append(UInt8(ascii: ","))
        }
        for member in written {
            JSONString.write(member.key, to: &out)
            out.append(UInt8(ascii: ":"))
            out += member.json
            out.append(UInt8(ascii: ","))
        }
        JSONString.write(key, to: &out)
        out += [UInt8(ascii: ":"), UInt8(ascii: "[")]
        for (index, item) in items.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            out += item
        }
        out += [UInt8(ascii: "]"), UInt8(ascii: "}")]
        return out
    }

    private static func writeMember(_ member: Member, to out: inout [UInt8]) {
        JSONString.write(member.key, to: &out)
        out.append(UInt8(ascii: ":"))
        member.value.write(to: &out)
    }

    private func write(to out: inout [UInt8]) {
        switch self {
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                JSONValue.writeMember(member, to: &out)
            }
            out.append(UInt8(ascii: "}"))
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                item.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .string(let value): JSONString.write(value, to: &out)
        case .number(let literal):
            var literal = literal
            literal.withUTF8 { out.append(contentsOf: $0) }  // one copy, not a byte at a time
        case .bool(let flag): out += flag ? JSONValue.trueBytes : JSONValue.falseBytes
        case .null: out += JSONValue.nullBytes
        }
    }

    private static let trueBytes = Array("true".utf8)
    private static let falseBytes = Array("false".utf8)
    private static let nullBytes = Array("null".utf8)

    /// The text with JSON string escapes, without the quotes: `"`, `\`,
    /// `\n`, `\r`, `\t`, and `\uXXXX` for other scalars that `needsEscape`
    /// picks (by default the C0 controls JSON requires).
    public static func escaped(
        _ text: some StringProtocol, needsEscape: (Unicode.Scalar) -> Bool = { $0.value < 0x20 }
    ) -> String {
        JSONString.escaped(text, needsEscape: needsEscape)
    }
}
