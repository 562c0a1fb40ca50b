/// A multipart boundary, validated against RFC 2046.
public struct Boundary: Sendable, Hashable, CustomStringConvertible, Codable {
    public let value: String

    /// A fresh random boundary: 128 random bits as 32 hex digits after a fixed prefix.
    public static func random() -> Boundary {
        var generator = PooledRandomNumberGenerator()
        var text = Array("hoist-".utf8)
        text.reserveCapacity(text.count + 32)
        for word in [generator.next() as UInt64, generator.next() as UInt64] {
            for shift in stride(from: 60, through: 0, by: -4) {
                text.append(hexDigits[Int((word >> UInt64(shift)) & 15)])
            }
        }
        return Boundary(unchecked: String(decoding: text, as: UTF8.self))
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// A caller-chosen boundary: 1 to 70 characters from RFC 2046's `bchars`,
    /// not ending in a space.
    public init(_ value: String) throws(FormDataError) {
        let bytes = Array(value.utf8)
        guard !bytes.isEmpty else {
            throw .invalidBoundary(boundary: value, reason: "it is empty")
        }
        guard bytes.count <= 70 else {
            throw .invalidBoundary(
                boundary: value, reason: "it has \(bytes.count) characters; RFC 2046 allows at most 70")
        }
        if let bad = bytes.first(where: { !Boundary.isBoundaryCharacter($0) }) {
            let shown = bad < 0x80 ? quoted(String(UnicodeScalar(bad))) : "a non-ASCII character"
            throw .invalidBoundary(boundary: value, reason: "\(shown) is not allowed by RFC 2046")
        }
        guard bytes.last != UInt8(ascii: " ") else {
            throw .invalidBoundary(boundary: value, reason: "it ends with a space")
        }
        self.value = value
    }

    private init(unchecked value: String) {
        self.value = value
    }

    public var description: String { value }

    /// The Content-Type header value, quoting the boundary when RFC 2045 requires it.
    public var contentTypeHeaderValue: String {
        // RFC 2045's tspecials, by a switch: searching an array for each byte was
        // a quarter of the work of checking a small upload's body.
        let needsQuotes = value.utf8.contains { byte in
            switch byte {
            case UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "@"),
                UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: ":"), UInt8(ascii: "\\"), UInt8(ascii: "\""),
                UInt8(ascii: "/"), UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "?"), UInt8(ascii: "="),
                UInt8(ascii: " "):
                return true
            default:
                return false
            }
        }
        return needsQuotes
            ? "multipart/form-data; boundary=\"" + value + "\"" : "multipart/form-data; boundary=" + value
    }

    // bchars := bcharsnospace / " "; bcharsnospace := DIGIT / ALPHA / "'" / "(" / ")" / "+" / "_" / "," / "-" / "." / "/" / ":" / "=" / "?"
    static func isBoundaryCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"):
            return true
        default:
            return Array("'()+_,-./:=? ".utf8).contains(byte)
        }
    }
}

extension Boundary {
    /// Stored as its text; decoding checks it again, so a bad journal cannot carry a bad boundary.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        do {
            try self.init(text)
        } catch {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: error.description))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}
