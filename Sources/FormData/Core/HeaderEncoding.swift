import WireRules

/// How part headers are written: WHATWG escaping for names and filenames,
/// and validation for extra headers.
enum HeaderEncoding {
    /// WHATWG multipart/form-data escaping, as browsers and curl do it:
    /// `"` becomes `%22`, CR `%0D`, LF `%0A`; every other character is raw UTF-8.
    static func escapeParameter(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [0x25, 0x32, 0x32]
            case 0x0D: out += [0x25, 0x30, 0x44]
            case 0x0A: out += [0x25, 0x30, 0x41]
            default: out.append(byte)
            }
        }
        return out
    }

    /// The header block of one part, from its opening CRLF-free first line to the blank line.
    static func headerBlock(for part: Part, contentType: String?) -> [UInt8] {
        var out: [UInt8] = Array("Content-Disposition: form-data; name=\"".utf8)
        out += escapeParameter(part.name)
        out.append(UInt8(ascii: "\""))
        if let filename = part.filename {
            out += Array("; filename=\"".utf8)
            out += escapeParameter(filename)
            out.append(UInt8(ascii: "\""))
        }
        out += crlf
        if let contentType {
            out += Array("Content-Type: \(contentType)".utf8) + crlf
        }
        for header in part.headers where !isContentType(header.name) {
            out += Array("\(header.name): \(header.value)".utf8) + crlf
        }
        out += crlf
        return out
    }

    /// Refuses header text that could inject lines or is not a valid token.
    static func validate(_ part: Part) throws(FormDataError) {
        if let type = part.contentType, HeaderSyntax.hasForbiddenValueByte(type) {
            throw .lineBreakInHeader(field: part.name, header: "Content-Type")
        }
        for header in part.headers {
            if HeaderSyntax.hasForbiddenValueByte(header.name) || HeaderSyntax.hasForbiddenValueByte(header.value) {
                throw .lineBreakInHeader(field: part.name, header: header.name)
            }
            guard HeaderSyntax.isToken(header.name) else {
                throw .invalidHeaderName(field: part.name, header: header.name)
            }
            if header.name.lowercased() == "content-disposition" {
                throw .reservedHeader(field: part.name, header: header.name)
            }
        }
    }

    /// An extra `Content-Type` header takes the place of the computed one, as in curl.
    static func explicitContentType(of part: Part) -> String? {
        part.headers.last(where: { isContentType($0.name) })?.value ?? part.contentType
    }

    static let crlf: [UInt8] = [0x0D, 0x0A]

    private static func isContentType(_ name: String) -> Bool {
        name.lowercased() == "content-type"
    }
}
