import FormData
@_exported import ImagePrep

/// Everything needed to send one upload: where, how, what, and the policies
/// that decide timeouts, retries and success.
public struct UploadRequest: Sendable, Hashable, Codable {
    public enum Method: String, Sendable, Hashable, CaseIterable, Codable {
        case post = "POST"
        case put = "PUT"
        case patch = "PATCH"
    }

    /// What the body is. Each kind is encoded by FormData.
    public enum Body: Sendable, Hashable, Codable {
        case multipart(MultipartForm)
        case urlencoded(URLEncodedForm)
        /// A JSON document, already serialised.
        case json([UInt8])
        /// Bytes sent as they are, with their type (e.g. curl's `-d` urlencoded data).
        case bytes([UInt8], contentType: String)
        /// A file as the whole body; the type defaults to the file's MIME type.
        case rawFile(path: String, contentType: String? = nil)
        /// A file as base64 inside a JSON object.
        case base64JSON(Base64JSONBody)
        /// Bytes of unknown length as the whole body (`-T -`: standard input),
        /// sent chunked, or as a tus upload whose length is told at the end.
        case stream(StreamSource, contentType: String? = nil)

        /// The files the body reads from disk, in order.
        public var filePaths: [String] {
            switch self {
            case .multipart(let form):
                return form.parts.compactMap { if case .file(let path) = $0.content { path } else { nil } }
            case .rawFile(let path, _): return [path]
            case .base64JSON(let body): return [body.path]
            case .urlencoded, .json, .bytes, .stream: return []
            }
        }

        /// A short description for lists and logs.
        public var summary: String {
            switch self {
            case .multipart(let form):
                let files = form.parts.filter { $0.filename != nil }.count
                return
                    "multipart: \(files) file\(files == 1 ? "" : "s"), \(form.parts.count - files) field\(form.parts.count - files == 1 ? "" : "s")"
            case .urlencoded(let form): return "urlencoded: \(form.fields.count) fields"
            case .json(let bytes): return "json: \(bytes.count) bytes"
            case .bytes(let bytes, let type): return "\(type): \(bytes.count) bytes"
            case .rawFile(let path, _): return "raw: \(path)"
            case .base64JSON(let body): return "base64 json: \(body.path)"
            case .stream: return "standard input"
            }
        }

        /// Whether the body can be sent again: not when a part streams stdin or a FIFO.
        public var isReplayable: Bool {
            if case .stream = self { return false }
            guard case .multipart(let form) = self else { return true }
            return !form.parts.contains { if case .stream = $0.content { true } else { false } }
        }

        /// Encodes the body, checking every file before anything is sent.
        public func encode() throws(FormDataError) -> RequestBody {
            switch self {
            case .multipart(let form): return try form.makeBody()
            case .urlencoded(let form): return form.makeBody()
            case .json(let bytes): return .json(bytes)
            case .bytes(let bytes, let type): return .json(bytes, contentType: type)
            case .rawFile(let path, let type): return try .rawFile(path: path, contentType: type)
            case .base64JSON(let body): return try body.makeBody()
            case .stream(let source, let type):
                return RequestBody(
                    contentType: type ?? "application/octet-stream", segments: [.stream(source, field: "-")])
            }
        }
    }

    public var url: String
    public var method: Method
    /// Extra request headers in order. Content-Type and Content-Length come from the body.
    public var headers: [HeaderField]
    public var body: Body
    public var timeouts: Timeouts
    public var retry: RetryPolicy
    public var success: SuccessRule
    /// A name for lists, e.g. the file name; defaults to the body summary.
    public var label: String?
    /// One request, or a resumable protocol (tus) that sends the body in pieces.
    public var transfer: Transfer
    /// Images are prepared (downscaled, re-encoded, stripped) once, before the first attempt.
    public var images: ImageSettings?
    /// Per file path, settings that replace `images` for that file; `nil` sends it as it is.
    public var imagesByFile: [String: ImageSettings?]

    public init(
        url: String,
        method: Method = .post,
        headers: [HeaderField] = [],
        body: Body,
        timeouts: Timeouts = Timeouts(),
        retry: RetryPolicy = RetryPolicy(),
        success: SuccessRule = SuccessRule(),
        label: String? = nil,
        transfer: Transfer = .single,
        images: ImageSettings? = nil,
        imagesByFile: [String: ImageSettings?] = [:]
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeouts = timeouts
        self.retry = retry
        self.success = success
        self.label = label
        self.transfer = transfer
        self.images = images
        self.imagesByFile = imagesByFile
    }

    public var displayName: String { label ?? body.summary }

    enum CodingKeys: String, CodingKey {
        case url, method, headers, body, timeouts, retry, success, label, transfer, images, imagesByFile
    }

    /// Journals written before transfers existed have no `transfer`: single.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        url = try c.decode(String.self, forKey: .url)
        method = try c.decode(Method.self, forKey: .method)
        headers = try c.decode([HeaderField].self, forKey: .headers)
        body = try c.decode(Body.self, forKey: .body)
        timeouts = try c.decode(Timeouts.self, forKey: .timeouts)
        retry = try c.decode(RetryPolicy.self, forKey: .retry)
        success = try c.decode(SuccessRule.self, forKey: .success)
        label = try c.decodeIfPresent(String.self, forKey: .label)
        transfer = try c.decodeIfPresent(Transfer.self, forKey: .transfer) ?? .single
        images = try c.decodeIfPresent(ImageSettings.self, forKey: .images)
        imagesByFile = try c.decodeIfPresent([String: ImageSettings?].self, forKey: .imagesByFile) ?? [:]
    }
}

/// Timeouts of one request. `nil` means none.
public struct Timeouts: Sendable, Hashable, Codable {
    /// Time allowed to open the connection (TCP and TLS).
    public var connect: Duration
    /// Time allowed with no byte moving in either direction.
    public var idle: Duration
    /// Time allowed for a whole attempt.
    public var total: Duration?

    public init(connect: Duration = .seconds(10), idle: Duration = .seconds(30), total: Duration? = nil) {
        self.connect = connect
        self.idle = idle
        self.total = total
    }
}
