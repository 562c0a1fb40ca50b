/// What the receiver got: the JSON body of every 200 answer to an upload (also Codable so tests can decode it).
public struct ReceivedUpload: Codable, Sendable, Equatable {
    /// A text part of a multipart form, or a pair of an urlencoded body.
    public struct Field: Codable, Sendable, Equatable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// A file saved to the receiver's directory.
    public struct File: Codable, Sendable, Equatable {
        /// Form field name; "" for a raw body.
        public var name: String
        /// Filename as the client sent it (decoded); for a raw body the last URL path component, or "body".
        public var filename: String?
        public var contentType: String?
        public var size: Int64
        /// Lowercase hex SHA-256 of the bytes.
        public var sha256: String
        /// File name relative to the receiver's directory (sanitised, made unique).
        public var savedAs: String

        public init(
            name: String, filename: String?, contentType: String?, size: Int64, sha256: String, savedAs: String
        ) {
            self.name = name
            self.filename = filename
            self.contentType = contentType
            self.size = size
            self.sha256 = sha256
            self.savedAs = savedAs
        }
    }

    public var method: String
    /// URL path, without the query.
    public var path: String
    /// The request's Content-Type header as sent.
    public var contentType: String?
    /// Bytes of request body received.
    public var bodyBytes: Int64
    public var fields: [Field]
    public var files: [File]
    /// The parsed request body when it was `application/json` (up to 8 MiB).
    public var json: ReceivedJSON?

    public init(
        method: String, path: String, contentType: String?, bodyBytes: Int64,
        fields: [Field] = [], files: [File] = [], json: ReceivedJSON? = nil
    ) {
        self.method = method
        self.path = path
        self.contentType = contentType
        self.bodyBytes = bodyBytes
        self.fields = fields
        self.files = files
        self.json = json
    }

    /// The first field called `name`.
    public func field(_ name: String) -> String? {
        fields.first { $0.name == name }?.value
    }

    /// The first file sent in the form field `name`.
    public func file(_ name: String) -> File? {
        files.first { $0.name == name }
    }
}
