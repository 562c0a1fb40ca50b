import FormData

/// A file waiting to be uploaded, as the Files pane lists it.
public struct StagedFile: Sendable, Hashable, Identifiable {
    public var id: Int
    public var path: String
    public var size: Int64
    /// The type detected from the extension (built-in table plus /etc/mime.types).
    public var detectedType: String
    /// The form field the file is sent in.
    public var fieldName: String
    /// Overrides of the filename and Content-Type sent for the part.
    public var filename: String?
    public var contentType: String?
    /// Marked with Space: `u` then uploads only the marked files.
    public var marked = false

    public init(id: Int = 0, path: String, size: Int64, detectedType: String? = nil, fieldName: String = "file") {
        self.id = id
        self.path = path
        self.size = size
        self.fieldName = fieldName
        self.detectedType = detectedType ?? MIMETypes.type(forFilename: path)
    }

    public var baseName: String { FormData.baseName(of: path) }

    public var displayName: String { filename ?? baseName }
    public var effectiveType: String { contentType ?? detectedType }

    var part: Part {
        .file(fieldName, path: path, filename: filename, contentType: effectiveType)
    }
}
