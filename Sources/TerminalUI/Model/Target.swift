import FormData
import UploadEngine

/// Where and how uploads go: edited with `t`.
public struct Target: Sendable, Hashable, Codable {
    /// How staged files and fields become a request body.
    public enum BodyKind: String, Sendable, Hashable, CaseIterable, Codable {
        case multipart = "multipart"
        case base64JSON = "base64 JSON"
        case raw = "raw file"
        case urlencoded = "urlencoded"
        case json = "JSON"

        public var usesFiles: Bool { self == .multipart || self == .base64JSON || self == .raw }
        public var usesFields: Bool { self != .raw }
    }

    public var url: String
    public var method: UploadRequest.Method
    public var bodyKind: BodyKind
    /// `key.path=value` expectations, comma-separated, e.g. `RETCODE=0000`.
    public var expectations: [SuccessRule.Expectation]
    /// Where the server's message is, e.g. `RETMSG`.
    public var messagePath: String?
    public var retries: Int
    /// Connect, idle and total time allowed for each attempt.
    public var timeouts: Timeouts
    /// The form field newly staged files get.
    public var fileField: String

    public init(
        url: String = "", method: UploadRequest.Method = .post, bodyKind: BodyKind = .multipart,
        expectations: [SuccessRule.Expectation] = [], messagePath: String? = nil, retries: Int = 3,
        timeouts: Timeouts = Timeouts(), fileField: String = "file"
    ) {
        self.url = url
        self.method = method
        self.bodyKind = bodyKind
        self.expectations = expectations
        self.messagePath = messagePath
        self.retries = retries
        self.timeouts = timeouts
        self.fileField = fileField
    }

    var successRule: SuccessRule { SuccessRule(expectations: expectations, messagePath: messagePath) }
}

/// Why the staged files and fields cannot be sent as they are.
public struct PlanError: Error, Sendable, Hashable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

extension Target {
    /// The requests for `files` and `entries`: with `oneRequest`, all files
    /// go in one multipart body; otherwise each file is its own request
    /// carrying every field. Bad input is refused here, before any task exists.
    public func requests(files: [StagedFile], entries: [FormEntry], oneRequest: Bool) throws(PlanError) -> [UploadRequest] {
        guard !url.isEmpty else { throw PlanError("no target URL: press t to set one") }
        do { _ = try UploadEngine.validate(url: url) } catch { throw PlanError(error.description) }
        let headers = entries.filter { $0.kind == .header }.map { HeaderField($0.name, $0.value) }
        let fields = entries.filter { $0.kind == .field }
        func request(_ body: UploadRequest.Body, label: String) -> UploadRequest {
            UploadRequest(
                url: url, method: method, headers: headers, body: body, timeouts: timeouts,
                retry: RetryPolicy(maxRetries: retries), success: successRule, label: label)
        }
        switch bodyKind {
        case .multipart:
            let fieldParts = fields.map { Part.text($0.name, $0.value) }
            if files.isEmpty {
                guard !fields.isEmpty else { throw PlanError("nothing to upload: press a to add files or f to add a field") }
                return [request(.multipart(MultipartForm(parts: fieldParts)), label: "\(fields.count) field\(fields.count == 1 ? "" : "s")")]
            }
            if oneRequest {
                let label = files.count == 1 ? files[0].displayName : "\(files.count) files"
                return [request(.multipart(MultipartForm(parts: fieldParts + files.map(\.part))), label: label)]
            }
            return files.map { request(.multipart(MultipartForm(parts: fieldParts + [$0.part])), label: $0.displayName) }
        case .base64JSON:
            guard !files.isEmpty else { throw PlanError("base64 JSON sends a file: press a to add one") }
            return files.map { file in
                let body = Base64JSONBody(
                    fileField: file.fieldName, path: file.path, typeValue: file.effectiveType,
                    fields: fields.map { FormField($0.name, $0.value) })
                return request(.base64JSON(body), label: file.displayName)
            }
        case .raw:
            guard !files.isEmpty else { throw PlanError("a raw upload sends a file: press a to add one") }
            return files.map { request(.rawFile(path: $0.path, contentType: $0.effectiveType), label: $0.displayName) }
        case .urlencoded:
            guard !fields.isEmpty else { throw PlanError("urlencoded sends fields only: press f to add one") }
            return [request(.urlencoded(URLEncodedForm(fields: fields.map { FormField($0.name, $0.value) })), label: "\(fields.count) fields")]
        case .json:
            guard !fields.isEmpty else { throw PlanError("a JSON body is made of fields: press f to add one") }
            let object = JSONValue.object(fields.map { .init($0.name, .string($0.value)) })
            return [request(.json(Array(object.compactJSON.utf8)), label: "JSON, \(fields.count) fields")]
        }
    }
}
