/// An `application/x-www-form-urlencoded` body, encoded as browsers do
/// (WHATWG): space becomes `+`, `*-._` and alphanumerics stay, all else is %XX.
public struct URLEncodedForm: Sendable, Hashable, Codable {
    public var fields: [FormField]

    public init(fields: [FormField] = []) {
        self.fields = fields
    }

    /// Nested parameters, flattened the AFNetworking way (`user[tags][]`).
    public init(parameters: [String: FormValue]) {
        fields = FormParameters.pairs(parameters).map { FormField($0.name, $0.value) }
    }

    /// Each field as `name=value`, both encoded, in order; the body joins them with `&`.
    public var encodedPairs: [String] {
        fields.map { Self.encode($0.name) + "=" + Self.encode($0.value) }
    }

    public func makeBody() -> RequestBody {
        let encoded = encodedPairs.joined(separator: "&")
        return RequestBody(
            contentType: "application/x-www-form-urlencoded",
            segments: encoded.isEmpty ? [] : [.bytes(Array(encoded.utf8))])
    }

    public static func encode(_ text: String) -> String {
        var out: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "*"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"):
                out.append(byte)
            case UInt8(ascii: " "):
                out.append(UInt8(ascii: "+"))
            default:
                out += Array("%".utf8) + hexByte(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// A name and a text value.
public struct FormField: Sendable, Hashable, Codable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

func hexByte(_ byte: UInt8) -> [UInt8] {
    let digits = Array("0123456789ABCDEF".utf8)
    return [digits[Int(byte >> 4)], digits[Int(byte & 15)]]
}
