/// A nested parameter value, flattened into form fields with AFNetworking's
/// rules: dictionary keys sorted, `key[sub]`, arrays as `key[]`, null as an
/// empty value.
public indirect enum FormValue: Sendable, Hashable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case null
    case array([FormValue])
    case dictionary([String: FormValue])
}

extension FormValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByNilLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(arrayLiteral elements: FormValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, FormValue)...) {
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

public enum FormParameters {
    /// The flat (name, value) pairs for nested parameters, in AFNetworking's order.
    ///
    /// `["user": ["name": "a", "tags": ["x", "y"]]]` gives
    /// `user[name]=a`, `user[tags][]=x`, `user[tags][]=y`.
    /// Empty arrays and dictionaries produce no pair, as in AFNetworking.
    public static func pairs(_ parameters: [String: FormValue]) -> [(name: String, value: String)] {
        var out: [(name: String, value: String)] = []
        for key in parameters.keys.sorted() {
            flatten(parameters[key]!, name: key, into: &out)
        }
        return out
    }

    private static func flatten(_ value: FormValue, name: String, into out: inout [(name: String, value: String)]) {
        switch value {
        case .dictionary(let dictionary):
            for key in dictionary.keys.sorted() {
                flatten(dictionary[key]!, name: "\(name)[\(key)]", into: &out)
            }
        case .array(let items):
            for item in items {
                flatten(item, name: "\(name)[]", into: &out)
            }
        case .string(let text): out.append((name, text))
        case .int(let number): out.append((name, String(number)))
        case .double(let number): out.append((name, String(number)))
        case .bool(let flag): out.append((name, flag ? "true" : "false"))
        case .null: out.append((name, ""))
        }
    }
}
