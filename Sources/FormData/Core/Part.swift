/// One part of a multipart/form-data body.
///
/// Build parts with the static constructors (`text`, `file`, `fileAsText`,
/// `data`, `stream`); they pick the defaults curl and browsers use.
public struct Part: Sendable, Hashable, Codable {
    /// Where a part's bytes come from.
    public enum Content: Sendable, Hashable, Codable {
        /// Bytes held in memory.
        case bytes([UInt8])
        /// A regular file, sent whole; its length comes from stat.
        case file(path: String)
        /// A source of unknown length (stdin, a FIFO); makes the body chunked.
        case stream(StreamSource)
    }

    /// The field name, sent WHATWG-escaped.
    public var name: String
    /// The filename parameter, sent WHATWG-escaped. `nil` omits it.
    public var filename: String?
    /// An explicit Content-Type. When `nil`, a part with a filename gets one
    /// from the MIME table and a part without a filename gets none.
    public var contentType: String?
    /// Extra headers, sent in this order after Content-Disposition and Content-Type.
    public var headers: [HeaderField]
    public var content: Content

    public init(
        name: String,
        filename: String? = nil,
        contentType: String? = nil,
        headers: [HeaderField] = [],
        content: Content
    ) {
        self.name = name
        self.filename = filename
        self.contentType = contentType
        self.headers = headers
        self.content = content
    }

    /// A text field.
    public static func text(_ name: String, _ value: String, headers: [HeaderField] = []) -> Part {
        Part(name: name, headers: headers, content: .bytes(Array(value.utf8)))
    }

    /// A text field given as raw bytes.
    public static func text(_ name: String, bytes: [UInt8], headers: [HeaderField] = []) -> Part {
        Part(name: name, headers: headers, content: .bytes(bytes))
    }

    /// A file from disk. The filename defaults to the path's base name, never the full path.
    public static func file(
        _ name: String,
        path: String,
        filename: String? = nil,
        contentType: String? = nil,
        headers: [HeaderField] = []
    ) -> Part {
        Part(
            name: name,
            filename: filename ?? baseName(of: path),
            contentType: contentType,
            headers: headers,
            content: .file(path: path)
        )
    }

    /// A file's contents sent as a text field (curl's `name=<file`): no filename.
    public static func fileAsText(
        _ name: String,
        path: String,
        contentType: String? = nil,
        headers: [HeaderField] = []
    ) -> Part {
        Part(name: name, contentType: contentType, headers: headers, content: .file(path: path))
    }

    /// Bytes sent as a file upload.
    public static func data(
        _ name: String,
        _ bytes: [UInt8],
        filename: String,
        contentType: String? = nil,
        headers: [HeaderField] = []
    ) -> Part {
        Part(name: name, filename: filename, contentType: contentType, headers: headers, content: .bytes(bytes))
    }

    /// A stream of unknown length, such as stdin or a FIFO.
    public static func stream(
        _ name: String,
        from source: StreamSource,
        filename: String? = nil,
        contentType: String? = nil,
        headers: [HeaderField] = []
    ) -> Part {
        Part(name: name, filename: filename, contentType: contentType, headers: headers, content: .stream(source))
    }
}

/// A header line added to a part. CR and LF are refused when the body is built.
public struct HeaderField: Sendable, Hashable, Codable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// A byte source whose length is not known in advance.
public enum StreamSource: Sendable, Hashable, Codable {
    /// The process's standard input. It is read, never closed.
    case standardInput
    /// An already-open descriptor owned by the caller. It is read, never closed.
    case fileDescriptor(Int32)
    /// A path opened at send time: a FIFO, a character device or a regular file.
    case path(String)
}

/// The last path component, as curl and browsers send it.
public func baseName(of path: String) -> String {
    let slash = UInt8(ascii: "/")
    let utf8 = path.utf8
    var end = utf8.endIndex
    // Trailing slashes go ("a/b/" is "b"), but "/" stays "/".
    while end > utf8.startIndex, utf8.index(before: end) > utf8.startIndex, utf8[utf8.index(before: end)] == slash {
        end = utf8.index(before: end)
    }
    let trimmed = path[..<end]
    guard let last = trimmed.utf8.lastIndex(of: slash), trimmed.utf8.index(after: last) < end else {
        return String(trimmed)
    }
    return String(trimmed[trimmed.utf8.index(after: last)...])
}
