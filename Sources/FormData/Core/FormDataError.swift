/// Everything that can go wrong while building or streaming a body.
///
/// Messages name the field and the path so a user can fix the input, e.g.
/// `file not found: ./front.jpg (field "image")`.
public enum FormDataError: Error, Hashable, Sendable, CustomStringConvertible {
    case fileNotFound(field: String, path: String)
    case isDirectory(field: String, path: String)
    case permissionDenied(field: String, path: String)
    /// `kind` is what was found instead, e.g. "a FIFO" or "a character device".
    case notRegularFile(field: String, path: String, kind: String)
    case cannotOpen(field: String, path: String, reason: String)
    case invalidBoundary(boundary: String, reason: String)
    /// A caller-chosen boundary that also occurs inside an in-memory part.
    case boundaryInContent(field: String)
    case lineBreakInHeader(field: String, header: String)
    case invalidHeaderName(field: String, header: String)
    case reservedHeader(field: String, header: String)
    /// The file's size, identity or modification time differs from what was
    /// measured before sending; the body would have been short or padded.
    case fileChanged(field: String, path: String, detail: String)
    case readFailed(field: String, path: String, reason: String)
    case tooLargeForMemory(limit: Int64)
    case writeFailed(path: String, reason: String)

    public var description: String {
        switch self {
        case let .fileNotFound(field, path):
            return "file not found: \(path)\(ofField(field))"
        case let .isDirectory(field, path):
            return "is a directory, not a file: \(path)\(ofField(field))"
        case let .permissionDenied(field, path):
            return
                "permission denied: \(path)\(ofField(field)): make it readable or run as a user who can read it"
        case let .notRegularFile(field, path, kind):
            return
                "not a regular file: \(path) is \(kind)\(ofField(field)); send it as a stream of unknown length instead"
        case let .cannotOpen(field, path, reason):
            return "cannot open \(path)\(ofField(field)): \(reason)"
        case let .invalidBoundary(boundary, reason):
            return "invalid multipart boundary \(quoted(boundary)): \(reason)"
        case let .boundaryInContent(field):
            return "the boundary occurs inside the value of field \(quoted(field)); choose another boundary"
        case let .lineBreakInHeader(field, header):
            return
                "header \(quoted(header)) of field \(quoted(field)) contains CR, LF or NUL; a header must be one line"
        case let .invalidHeaderName(field, header):
            return
                "invalid header name \(quoted(header)) in field \(quoted(field)): use letters, digits and !#$%&'*+-.^_`|~ only"
        case let .reservedHeader(field, header):
            return
                "header \(quoted(header)) of field \(quoted(field)) is set by Hoist; use the part's name and filename instead"
        case let .fileChanged(field, path, detail):
            return "file changed while uploading: \(path)\(ofField(field)): \(detail)"
        case let .readFailed(field, path, reason):
            return "cannot read \(path)\(ofField(field)): \(reason)"
        case let .tooLargeForMemory(limit):
            return "body is larger than the in-memory limit of \(limit) bytes; stream it or write it to a file"
        case let .writeFailed(path, reason):
            return "cannot write \(path): \(reason)"
        }
    }
}

/// Quotes a name for a message, escaping control characters so that a
/// hostile name cannot break the terminal line it is printed on.
func quoted(_ text: String) -> String {
    String(reflecting: text)
}

/// ` (field "name")` after a path; nothing for a file sent as the whole body
/// (`-T`, tus, S3), which has no field.
func ofField(_ field: String) -> String {
    field.isEmpty ? "" : " (field \(quoted(field)))"
}
