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
        /// A file as base64 inside a JSON object. Indirect: inline, its
        /// five fields made every request (and task) 32 bytes larger.
        indirect case base64JSON(Base64JSONBody)
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
    /// A name for lists, e.g. the file name; defaults to the body summary.
    public var label: String?
    /// What the requests of one send have in common, in one shared box: a
    /// queued task holds 8 bytes for it instead of 200 (10,000 tasks are
    /// 10,000 copies in the engine and as many in the journal).
    private var policies: SharedValue<Policies>

    struct Policies: Sendable, Hashable {
        var timeouts: Timeouts
        var retry: RetryPolicy
        var success: SuccessRule
        var transfer: Transfer
        var images: ImageSettings?
        var imagesByFile: [String: ImageSettings?]
    }

    public var timeouts: Timeouts {
        get { policies.value.timeouts }
        set { policies.value.timeouts = newValue }
    }
    public var retry: RetryPolicy {
        get { policies.value.retry }
        set { policies.value.retry = newValue }
    }
    public var success: SuccessRule {
        get { policies.value.success }
        set { policies.value.success = newValue }
    }
    /// One request, or a resumable protocol (tus) that sends the body in pieces.
    public var transfer: Transfer {
        get { policies.value.transfer }
        set { policies.value.transfer = newValue }
    }
    /// Images are prepared (downscaled, re-encoded, stripped) once, before the first attempt.
    public var images: ImageSettings? {
        get { policies.value.images }
        set { policies.value.images = newValue }
    }
    /// Per file path, settings that replace `images` for that file; `nil` sends it as it is.
    public var imagesByFile: [String: ImageSettings?] {
        get { policies.value.imagesByFile }
        set { policies.value.imagesByFile = newValue }
    }

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
        self.label = label
        self.policies = SharedValue(
            Policies(
                timeouts: timeouts, retry: retry, success: success, transfer: transfer, images: images,
                imagesByFile: imagesByFile))
    }

    public var displayName: String { label ?? body.summary }

    enum CodingKeys: String, CodingKey {
        case url, method, headers, body, timeouts, retry, success, label, transfer, images, imagesByFile
    }

    /// What a request has by default is left out of its JSON (a journal
    /// holds one per task), and read back as that default. Journals written
    /// before transfers existed have no `transfer`: single.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        url = try c.decode(String.self, forKey: .url)
        method = try c.decodeIfPresent(Method.self, forKey: .method) ?? .post
        headers = try c.decodeIfPresent([HeaderField].self, forKey: .headers) ?? []
        body = try c.decode(Body.self, forKey: .body)
        label = try c.decodeIfPresent(String.self, forKey: .label)
        policies = SharedValue(
            Policies(
                timeouts: try c.decodeIfPresent(Timeouts.self, forKey: .timeouts) ?? Timeouts(),
                retry: try c.decodeIfPresent(RetryPolicy.self, forKey: .retry) ?? RetryPolicy(),
                success: try c.decodeIfPresent(SuccessRule.self, forKey: .success) ?? SuccessRule(),
                transfer: try c.decodeIfPresent(Transfer.self, forKey: .transfer) ?? .single,
                images: try c.decodeIfPresent(ImageSettings.self, forKey: .images),
                imagesByFile: try c.decodeIfPresent([String: ImageSettings?].self, forKey: .imagesByFile) ?? [:]))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(url, forKey: .url)
        if method != .post { try c.encode(method, forKey: .method) }
        if !headers.isEmpty { try c.encode(headers, forKey: .headers) }
        try c.encode(body, forKey: .body)
        try c.encodeIfPresent(label, forKey: .label)
        let policies = policies.value
        if policies.timeouts != Timeouts() { try c.encode(policies.timeouts, forKey: .timeouts) }
        if policies.retry != RetryPolicy() { try c.encode(policies.retry, forKey: .retry) }
        if policies.success != SuccessRule() { try c.encode(policies.success, forKey: .success) }
        if policies.transfer != .single { try c.encode(policies.transfer, forKey: .transfer) }
        try c.encodeIfPresent(policies.images, forKey: .images)
        if !policies.imagesByFile.isEmpty { try c.encode(policies.imagesByFile, forKey: .imagesByFile) }
    }
}

/// Timeouts of one request. `nil` means none.
public struct Timeouts: Sendable, Hashable, Codable {
    /// Time allowed to open the connection (TCP and TLS).
    public var connect: Duration
    /// Time allowed with no byte moving in either direction while the
    /// request is written and the answer read.
    public var idle: Duration
    /// Time allowed, once the whole body is written, for the answer to
    /// begin: a server that checks a photo for a minute is not idle.
    public var answer: Duration
    /// Time allowed for a whole attempt.
    public var total: Duration?

    public static let defaultAnswer = Duration.seconds(300)

    public init(
        connect: Duration = .seconds(10), idle: Duration = .seconds(30), answer: Duration = Timeouts.defaultAnswer,
        total: Duration? = nil
    ) {
        self.connect = connect
        self.idle = idle
        self.answer = answer
        self.total = total
    }

    private enum CodingKeys: String, CodingKey { case connect, idle, answer, total }

    // Journals written before the answer timeout have none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        connect = try container.decode(Duration.self, forKey: .connect)
        idle = try container.decode(Duration.self, forKey: .idle)
        answer = try container.decodeIfPresent(Duration.self, forKey: .answer) ?? Self.defaultAnswer
        total = try container.decodeIfPresent(Duration.self, forKey: .total)
    }
}
