import FormData
import MultipartKit
import NIOCore

/// One part as an independent parser (multipart-kit's MultipartParser) saw it.
struct ParsedPart: Equatable, CustomStringConvertible {
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    var disposition: ContentDisposition? {
        header("Content-Disposition").flatMap(ContentDisposition.init)
    }
    var name: String? { disposition?.parameters["name"] }
    var filename: String? { disposition?.parameters["filename"] }
    var contentType: String? { header("Content-Type") }
    var text: String { String(decoding: body, as: UTF8.self) }

    func header(_ name: String) -> String? {
        headers.first(where: { $0.name.lowercased() == name.lowercased() })?.value
    }

    static func == (lhs: ParsedPart, rhs: ParsedPart) -> Bool {
        lhs.headers.map { [$0.name, $0.value] } == rhs.headers.map { [$0.name, $0.value] } && lhs.body == rhs.body
    }

    var description: String {
        "ParsedPart(headers: \(headers.map { "\($0.name): \($0.value)" }), body: \(body.count) bytes)"
    }
}

/// Parses a body with multipart-kit, feeding it in small slices so that
/// boundaries split across reads are exercised too.
func parseMultipart(_ body: [UInt8], boundary: String, sliceSize: Int = 977) throws -> [ParsedPart] {
    let parser = MultipartParser(boundary: boundary)
    var parts: [ParsedPart] = []
    var current = ParsedPart(headers: [], body: [])
    parser.onHeader = { name, value in current.headers.append((name, value)) }
    parser.onBody = { buffer in current.body += buffer.readableBytesView }
    parser.onPartComplete = {
        parts.append(current)
        current = ParsedPart(headers: [], body: [])
    }
    var offset = 0
    while offset < body.count {
        let end = min(offset + sliceSize, body.count)
        try parser.execute(ByteBuffer(bytes: body[offset..<end]))
        offset = end
    }
    return parts
}

/// A Content-Disposition header parsed properly.
///
/// multipart-kit splits this header naively on `;`, which breaks on a quoted
/// filename such as `"a;b.txt"`, so the tests parse it here: quoted strings
/// run to the next `"` (WHATWG sends no backslash escapes), and `%22`, `%0D`,
/// `%0A` are decoded back.
struct ContentDisposition: Equatable {
    var type: String
    var parameters: [String: String]

    init?(_ header: String) {
        var scalars = Substring(header)
        func skipSpaces() { scalars = scalars.drop(while: { $0 == " " || $0 == "\t" }) }
        skipSpaces()
        let typeEnd = scalars.firstIndex(of: ";") ?? scalars.endIndex
        type = scalars[..<typeEnd].trimmingSpaces().lowercased()
        scalars = scalars[typeEnd...]
        parameters = [:]
        while scalars.first == ";" {
            scalars = scalars.dropFirst()
            skipSpaces()
            guard let equals = scalars.firstIndex(of: "=") else { return nil }
            let key = scalars[..<equals].trimmingSpaces().lowercased()
            scalars = scalars[scalars.index(after: equals)...]
            skipSpaces()
            let value: Substring
            if scalars.first == "\"" {
                scalars = scalars.dropFirst()
                guard let close = scalars.firstIndex(of: "\"") else { return nil }
                value = scalars[..<close]
                scalars = scalars[scalars.index(after: close)...]
            } else {
                let end = scalars.firstIndex(of: ";") ?? scalars.endIndex
                value = Substring(scalars[..<end].trimmingSpaces())
                scalars = scalars[end...]
            }
            parameters[key] = ContentDisposition.unescape(String(value))
            skipSpaces()
        }
        guard scalars.isEmpty else { return nil }
    }

    static func unescape(_ text: String) -> String {
        text.replacing("%22", with: "\"").replacing("%0D", with: "\r").replacing("%0A", with: "\n")
    }
}

extension StringProtocol {
    func trimmingSpaces() -> String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}

extension RequestBody {
    /// The whole body as bytes, for tests.
    func bytes() throws -> [UInt8] {
        Array(try data(limit: 1 << 30))
    }
}
