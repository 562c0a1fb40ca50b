import FormData
import UploadEngine

/// Where and how uploads go: the one model behind a profile, the command
/// line and the UI's `t` dialog. The fields and headers sent with it are
/// `FormEntry`s kept beside it; `requests(entries:payload:)` turns both,
/// with the files, into requests.
public struct Target: Sendable, Hashable, Codable {
    /// How staged files and fields become a request body.
    public enum BodyKind: String, Sendable, Hashable, CaseIterable, Codable {
        case multipart = "multipart"
        case base64JSON = "base64 JSON"
        case raw = "raw file"
        case urlencoded = "urlencoded"
        case json = "JSON"

        /// "multipart, base64 JSON, raw file, urlencoded or JSON".
        public static var names: String { TargetValue.list(allCases.map(\.rawValue)) }

        public var usesFiles: Bool { self == .multipart || self == .base64JSON || self == .raw }
        public var usesFields: Bool { self != .raw }
    }

    /// How each file goes: one request, or a resumable tus upload.
    public enum TransferKind: String, Sendable, Hashable, CaseIterable, Codable {
        case single
        case tus
    }

    public static let defaultConcurrency = 4

    public var url: String
    public var method: UploadRequest.Method
    public var bodyKind: BodyKind
    /// `key.path=value` expectations, e.g. `RETCODE=0000`.
    public var expectations: [SuccessRule.Expectation]
    /// Where the server's message is, e.g. `RETMSG`.
    public var messagePath: String?
    public var retries: Int
    /// A POST or PATCH whose answer timed out after its whole body was sent is sent again.
    public var retryAfterSent = false
    public var retryPolicy: RetryPolicy { RetryPolicy(maxRetries: retries, retriesAfterSent: retryAfterSent) }
    /// Connect, idle and total time allowed for each attempt.
    public var timeouts: Timeouts
    /// The form field newly staged files get.
    public var fileField: String
    /// Uploads running at once.
    public var concurrency: Int
    /// Bytes per second over every upload at once (`--limit-rate`); 0 for no limit.
    public var limitRate: Int64 = 0
    /// `limitRate` as the engine takes it: nil for no limit.
    public var bandwidthLimit: Int64? { limitRate > 0 ? limitRate : nil }
    public var transfer: TransferKind
    /// Bytes per tus `PATCH`.
    public var chunkSize: TusChunkSize
    /// Partial tus uploads per file, joined by the concatenation extension.
    public var parallelParts: Int
    /// Where and how `s3://` URLs go (`isS3`).
    public var s3: S3TargetOptions
    /// An object store's server (S3-compatible, a GCS emulator) instead of the cloud's own.
    public var endpoint: String?
    /// The objects' Content-Type (S3, GCS); else each file's, from the MIME table.
    public var contentType: String?
    /// How image files are prepared before they go; `nil` sends them as they are.
    public var images: ImageSettings?
    /// `images`, with the defaults when there are none: what the image options set.
    public var imageSettings: ImageSettings {
        get { images ?? ImageSettings() }
        set { images = newValue == ImageSettings() ? nil : newValue }
    }

    public init(
        url: String = "", method: UploadRequest.Method = .post, bodyKind: BodyKind = .multipart,
        expectations: [SuccessRule.Expectation] = [], messagePath: String? = nil, retries: Int = 3,
        timeouts: Timeouts = Timeouts(), fileField: String = "file", concurrency: Int = Target.defaultConcurrency,
        transfer: TransferKind = .single, chunkSize: TusChunkSize = .automatic, parallelParts: Int = 1,
        s3: S3TargetOptions = S3TargetOptions(), images: ImageSettings? = nil
    ) {
        self.url = url
        self.method = method
        self.bodyKind = bodyKind
        self.expectations = expectations
        self.messagePath = messagePath
        self.retries = retries
        self.timeouts = timeouts
        self.fileField = fileField
        self.concurrency = concurrency
        self.transfer = transfer
        self.chunkSize = chunkSize
        self.parallelParts = parallelParts
        self.s3 = s3
        self.images = images
    }

    /// An `s3://BUCKET/KEY` URL: each file is an object in S3-compatible
    /// storage, whatever the transfer kind and body say.
    public var isS3: Bool { kind == S3Target.self }
    /// The kind of `TargetKinds` the URL names (`gs://`), if any.
    public var kind: (any TargetKind.Type)? { TargetKinds.claiming(url) }
    /// An S3, tus or other kind's target sends each file alone, whatever the method and body kind say.
    public var sendsEachFileAlone: Bool { transfer == .tus || kind != nil }
    /// How the files go, in a word: `S3`, `GCS`, `tus`, or the method.
    public var howSent: String { kind?.label ?? (transfer == .tus ? "tus" : method.rawValue) }

    public var successRule: SuccessRule { SuccessRule(expectations: expectations, messagePath: messagePath) }

    /// The URL and each option of `TargetOption.all` that is not at its
    /// default, by key, as the option writes it back: the journal keeps
    /// every setting the table has, and a new row needs nothing here.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: OptionKey.self)
        try container.encode(url, forKey: OptionKey("url"))
        var options: [String: [String]] = [:]
        for option in TargetOption.all { options[option.key] = option.written(in: self) }
        try container.encode(options, forKey: OptionKey("options"))
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: OptionKey.self)
        guard container.contains(OptionKey("options")) else {
            self = try LegacyTarget(from: decoder).target
            return
        }
        var target = Target(url: try container.decode(String.self, forKey: OptionKey("url")))
        let options = try container.decode([String: [String]].self, forKey: OptionKey("options"))
        // A key this version does not know (written by a later one) is left out.
        for (key, values) in options.sorted(by: { $0.key < $1.key }) {
            guard let option = TargetOption.named(key) else { continue }
            do { try option.setting(values).apply(to: &target) } catch {
                throw DecodingError.dataCorruptedError(
                    forKey: OptionKey("options"), in: container, debugDescription: "\(key): \(error)")
            }
        }
        self = target
    }

    private struct OptionKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

/// A target as journals before the option table wrote it: Swift's own
/// form of each stored property. Those journals still load.
private struct LegacyTarget: Decodable {
    var target = Target()

    enum CodingKeys: String, CodingKey {
        case url, method, bodyKind, expectations, messagePath, retries, timeouts, fileField, concurrency, limitRate
        case transfer, chunkSize, parallelParts, s3, images
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        target.url = try container.decode(String.self, forKey: .url)
        target.method = try container.decode(UploadRequest.Method.self, forKey: .method)
        target.bodyKind = try container.decode(Target.BodyKind.self, forKey: .bodyKind)
        target.expectations = try container.decode([SuccessRule.Expectation].self, forKey: .expectations)
        target.messagePath = try container.decodeIfPresent(String.self, forKey: .messagePath)
        target.retries = try container.decode(Int.self, forKey: .retries)
        target.timeouts = try container.decode(Timeouts.self, forKey: .timeouts)
        target.fileField = try container.decode(String.self, forKey: .fileField)
        // Journals older still have no concurrency, limit, transfer, tus or S3 settings.
        target.concurrency = try container.decodeIfPresent(Int.self, forKey: .concurrency) ?? Target.defaultConcurrency
        target.limitRate = try container.decodeIfPresent(Int64.self, forKey: .limitRate) ?? 0
        target.transfer = try container.decodeIfPresent(Target.TransferKind.self, forKey: .transfer) ?? .single
        target.chunkSize = try container.decodeIfPresent(TusChunkSize.self, forKey: .chunkSize) ?? .automatic
        target.parallelParts = try container.decodeIfPresent(Int.self, forKey: .parallelParts) ?? 1
        target.s3 = try container.decodeIfPresent(S3TargetOptions.self, forKey: .s3) ?? S3TargetOptions()
        // The endpoint and content type were S3's own then.
        let objects = try container.decodeIfPresent(LegacyObjectStore.self, forKey: .s3)
        target.endpoint = objects?.endpoint
        target.contentType = objects?.contentType
        target.images = try container.decodeIfPresent(ImageSettings.self, forKey: .images)
    }
}

private struct LegacyObjectStore: Decodable {
    var endpoint: String?
    var contentType: String?
}

/// The S3 side of a target; `nil` is "as the AWS CLI would find it".
public struct S3TargetOptions: Sendable, Hashable, Codable {
    /// `--region`; else `AWS_REGION`, `AWS_DEFAULT_REGION`, the profile's, us-east-1.
    public var region: String?
    public var pathStyle: Bool
    /// `--aws-profile`: a profile of `~/.aws/credentials` and `~/.aws/config`.
    public var awsProfile: String?
    public var partSize: Int64?
    public var partConcurrency: Int
    /// `x-amz-storage-class` (STANDARD_IA, GLACIER...).
    public var storageClass: String?
    /// `x-amz-acl`, a canned ACL (private, public-read...).
    public var acl: String?
    /// `--checksum`; `nil` is CRC32.
    public var checksum: S3Checksum?

    public init(
        region: String? = nil, pathStyle: Bool = false, awsProfile: String? = nil, partSize: Int64? = nil,
        partConcurrency: Int = S3Settings.defaultPartConcurrency, storageClass: String? = nil, acl: String? = nil,
        checksum: S3Checksum? = nil
    ) {
        self.checksum = checksum
        self.region = region
        self.pathStyle = pathStyle
        self.awsProfile = awsProfile
        self.partSize = partSize
        self.partConcurrency = partConcurrency
        self.storageClass = storageClass
        self.acl = acl
    }

    /// The headers these options stand for.
    var headers: [HeaderField] {
        [
            storageClass.map { HeaderField("x-amz-storage-class", $0) }, acl.map { HeaderField("x-amz-acl", $0) },
        ].compactMap { $0 }
    }
}
