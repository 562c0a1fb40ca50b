/// A multipart/form-data form: a boundary and an ordered list of parts.
///
/// Building a form does no I/O. `makeBody()` checks every file and header and
/// fixes the exact length before any byte is produced.
public struct MultipartForm: Sendable, Hashable, Codable {
    public var boundary: Boundary
    public var parts: [Part]

    public init(boundary: Boundary = .random(), parts: [Part] = []) {
        self.boundary = boundary
        self.parts = parts
    }

    public mutating func append(_ part: Part) {
        parts.append(part)
    }

    /// Appends nested parameters as text fields, flattened the AFNetworking way.
    public mutating func append(parameters: [String: FormValue]) {
        for pair in FormParameters.pairs(parameters) {
            parts.append(.text(pair.name, pair.value))
        }
    }

    /// The request's Content-Type header value.
    public var contentType: String { boundary.contentTypeHeaderValue }

    /// Validates the form and lays out its body.
    ///
    /// Throws before producing anything when a file is missing, a directory,
    /// unreadable or not a regular file, or when a header is invalid.
    public func makeBody() throws(FormDataError) -> RequestBody {
        var layout = RequestBody.Layout()
        let delimiter = Array("--\(boundary.value)".utf8)
        for part in parts {
            try HeaderEncoding.validate(part)
            layout.append(bytes: delimiter + HeaderEncoding.crlf)
            switch part.content {
            case .bytes(let bytes):
                if contains(bytes, delimiter) { throw .boundaryInContent(field: part.name) }
                layout.append(
                    bytes: HeaderEncoding.headerBlock(for: part, contentType: contentType(for: part, path: nil)))
                layout.append(bytes: bytes)
            case .file(let path):
                let region = try FileRegion.wholeFile(path: path, field: part.name)
                layout.append(
                    bytes: HeaderEncoding.headerBlock(for: part, contentType: contentType(for: part, path: path)))
                layout.append(file: region)
            case .stream(let source):
                if case .path(let path) = source { try FileChecks.streamablePath(path: path, field: part.name) }
                layout.append(
                    bytes: HeaderEncoding.headerBlock(for: part, contentType: contentType(for: part, path: nil)))
                layout.append(stream: source, field: part.name)
            }
            layout.append(bytes: HeaderEncoding.crlf)
        }
        layout.append(bytes: delimiter + Array("--".utf8) + HeaderEncoding.crlf)
        return RequestBody(contentType: contentType, segments: layout.finish())
    }

    /// Explicit type first; then, for parts with a filename, the filename's
    /// extension, then the path's, then application/octet-stream. Parts without
    /// a filename are text fields and carry no type.
    private func contentType(for part: Part, path: String?) -> String? {
        if let explicit = HeaderEncoding.explicitContentType(of: part) { return explicit }
        guard let filename = part.filename else { return nil }
        return MIMETypes.lookup(filename: filename)
            ?? path.flatMap { MIMETypes.lookup(filename: $0) }
            ?? MIMETypes.fallback
    }
}

/// Whether `needle` occurs in `haystack`.
func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard !needle.isEmpty, haystack.count >= needle.count else { return false }
    let first = needle[0]
    var index = 0
    let last = haystack.count - needle.count
    while index <= last {
        if haystack[index] == first, haystack[index..<(index + needle.count)].elementsEqual(needle) {
            return true
        }
        index += 1
    }
    return false
}
