import FormData
import UploadEngine

/// What one send carries besides the target's fields and headers: files,
/// and from the command line, `-F` parts in their order, `-d` data or a JSON
/// document.
public struct Payload: Sendable, Hashable {
    /// A multipart body's parts in the order they go on the wire.
    public enum Item: Sendable, Hashable {
        /// A part sent in every request (`-F name=value`, `-F name=@file`).
        case part(Part)
        /// Where each request's file goes: one request per file, or all of
        /// them in one request with `oneRequest`.
        case files([FileChoice])
    }

    public var items: [Item]
    /// All files in one request instead of one request per file.
    public var oneRequest: Bool
    /// urlencoded pieces as curl's `-d` gives them, after the fields.
    public var encodedData: [String]
    /// A JSON document sent as it is (`--json DOC`) instead of one made of fields.
    public var document: [UInt8]?

    public init(items: [Item] = [], oneRequest: Bool = false, encodedData: [String] = [], document: [UInt8]? = nil) {
        self.items = items
        self.oneRequest = oneRequest
        self.encodedData = encodedData
        self.document = document
    }

    /// Staged files, as the UI sends them: after the fields.
    public init(files: [FileChoice], oneRequest: Bool = false) {
        self.init(items: files.isEmpty ? [] : [.files(files)], oneRequest: oneRequest)
    }

    /// Every file, in order.
    public var files: [FileChoice] {
        items.flatMap { item -> [FileChoice] in
            if case .files(let files) = item { return files }
            return []
        }
    }

    /// The fixed parts.
    var parts: [Part] {
        items.compactMap { item in
            if case .part(let part) = item { return part }
            return nil
        }
    }
}

/// A file to send and how: its form field, and the filename and type to
/// send when they are not the file's own.
public struct FileChoice: Sendable, Hashable {
    public var path: String
    public var field: String
    public var filename: String?
    public var contentType: String?

    public init(path: String, field: String, filename: String? = nil, contentType: String? = nil) {
        self.path = path
        self.field = field
        self.filename = filename
        self.contentType = contentType
    }

    public var displayName: String { filename ?? baseName(of: path) }

    var part: Part { .file(field, path: path, filename: filename, contentType: contentType) }

    /// The file as a whole body; `-` is standard input, as with curl's `-T -`.
    var rawBody: UploadRequest.Body {
        path == "-" ? .stream(.standardInput, contentType: contentType) : .rawFile(path: path, contentType: contentType)
    }
}
