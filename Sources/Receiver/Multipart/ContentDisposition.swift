/// The Content-Disposition header of a multipart/form-data part, decoded the way browsers and curl encode it.
///
/// Splitting this header on every `;` would break `filename="a;b.txt"`; this parser keeps
/// quoted values whole, then undoes the WHATWG escapes (`%22` -> `"`, `%0D` -> CR, `%0A` -> LF; nothing
/// else, so a literal `%41` in a filename stays as it is). `filename*=UTF-8''...` (RFC 5987) wins over
/// `filename` when both are present, although RFC 7578 clients do not send it.
struct ContentDisposition: Equatable {
    /// "form-data", lowercased.
    var type: String
    var name: String?
    var filename: String?

    init(parsing header: String) {
        let parsed = HeaderParameters(parsing: header, backslashEscapes: false)
        type = parsed.value.lowercased()
        name = parsed["name"].map(Self.decodeWHATWG)
        if let extended = parsed["filename*"].flatMap(Self.decodeRFC5987) {
            filename = extended
        } else {
            filename = parsed["filename"].map(Self.decodeWHATWG)
        }
    }

    /// Undoes the only three escapes of the WHATWG multipart/form-data encoding.
    static func decodeWHATWG(_ value: String) -> String {
        guard value.contains("%") else { return value }
        let bytes = Array(value.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "%"), index + 2 < bytes.count,
                bytes[index + 1] == UInt8(ascii: "0") || bytes[index + 1] == UInt8(ascii: "2")
            {
                let escape = String(decoding: bytes[(index + 1)...(index + 2)], as: UTF8.self).uppercased()
                let decoded: UInt8? =
                    switch escape {
                    case "22": UInt8(ascii: "\"")
                    case "0D": 13
                    case "0A": 10
                    default: nil
                    }
                if let decoded {
                    output.append(decoded)
                    index += 3
                    continue
                }
            }
            output.append(bytes[index])
            index += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// `charset'language'percent-encoded` (RFC 5987 ext-value); `nil` when malformed.
    static func decodeRFC5987(_ value: String) -> String? {
        let pieces = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard pieces.count == 3, let bytes = PercentDecoding.decode(pieces[2], plusAsSpace: false) else {
            return nil
        }
        switch pieces[0].lowercased() {
        case "iso-8859-1", "latin1":
            return String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        default:
            return String(decoding: bytes, as: UTF8.self)
        }
    }
}
