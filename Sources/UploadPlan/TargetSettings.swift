import FormData
import UploadEngine

/// Target settings as one source gives them: a profile, the command line or
/// the UI's `t` dialog. `nil` is "not given here". Every value was checked
/// by `TargetValue` when it was made.
public struct TargetSettings: Sendable, Hashable {
    public var url: String?
    public var method: UploadRequest.Method?
    public var bodyKind: Target.BodyKind?
    public var fileField: String?
    public var expectations: [SuccessRule.Expectation]?
    public var messagePath: String?
    public var retries: Int?
    public var concurrency: Int?
    /// Bytes per second; 0 says "no limit" over a lower source's limit.
    public var limitRate: Int64?
    public var timeout: Duration?
    public var connectTimeout: Duration?
    public var idleTimeout: Duration?
    public var transfer: Target.TransferKind?
    public var chunkSize: TusChunkSize?
    public var parallelParts: Int?
    public var s3: S3TargetOptions?
    /// Given whole: the command line's image options replace a profile's.
    public var images: ImageSettings?
    /// Text fields and headers, in the order they are sent.
    public var entries: [FormEntry]

    public init(
        url: String? = nil, method: UploadRequest.Method? = nil, bodyKind: Target.BodyKind? = nil,
        fileField: String? = nil, expectations: [SuccessRule.Expectation]? = nil, messagePath: String? = nil,
        retries: Int? = nil, concurrency: Int? = nil, limitRate: Int64? = nil, timeout: Duration? = nil,
        connectTimeout: Duration? = nil, idleTimeout: Duration? = nil, transfer: Target.TransferKind? = nil,
        chunkSize: TusChunkSize? = nil,
        parallelParts: Int? = nil, s3: S3TargetOptions? = nil, images: ImageSettings? = nil,
        entries: [FormEntry] = []
    ) {
        self.url = url
        self.method = method
        self.bodyKind = bodyKind
        self.fileField = fileField
        self.expectations = expectations
        self.messagePath = messagePath
        self.retries = retries
        self.concurrency = concurrency
        self.limitRate = limitRate
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.idleTimeout = idleTimeout
        self.transfer = transfer
        self.chunkSize = chunkSize
        self.parallelParts = parallelParts
        self.s3 = s3
        self.images = images
        self.entries = entries
    }

    /// The one precedence rule: what `self` gives wins over `lower` (the
    /// command line over the profile). An entry of `self` replaces `lower`'s
    /// of the same kind and name (header names in any case); `lower`'s
    /// other entries go first, in their order.
    public func over(_ lower: TargetSettings) -> TargetSettings {
        var merged = TargetSettings(
            url: url ?? lower.url, method: method ?? lower.method, bodyKind: bodyKind ?? lower.bodyKind,
            fileField: fileField ?? lower.fileField, expectations: expectations ?? lower.expectations,
            messagePath: messagePath ?? lower.messagePath, retries: retries ?? lower.retries,
            concurrency: concurrency ?? lower.concurrency, limitRate: limitRate ?? lower.limitRate,
            timeout: timeout ?? lower.timeout,
            connectTimeout: connectTimeout ?? lower.connectTimeout, idleTimeout: idleTimeout ?? lower.idleTimeout,
            transfer: transfer ?? lower.transfer, chunkSize: chunkSize ?? lower.chunkSize,
            parallelParts: parallelParts ?? lower.parallelParts, s3: s3 ?? lower.s3, images: images ?? lower.images)
        merged.entries = lower.entries.filter { !replaces($0) } + entries
        return merged
    }

    /// Whether one of these entries takes the place of `entry`.
    func replaces(_ entry: FormEntry) -> Bool {
        entries.contains { $0.kind == entry.kind && $0.sameName(as: entry) }
    }

    /// `target` with every value given here put in; entries are not part of a target.
    public func applied(to target: Target) -> Target {
        var target = target
        if let url { target.url = url }
        if let method { target.method = method }
        if let bodyKind { target.bodyKind = bodyKind }
        if let fileField { target.fileField = fileField }
        if let expectations { target.expectations = expectations }
        if let messagePath { target.messagePath = messagePath }
        if let retries { target.retries = retries }
        if let concurrency { target.concurrency = concurrency }
        if let limitRate { target.limitRate = limitRate }
        if let timeout { target.timeouts.total = timeout }
        if let connectTimeout { target.timeouts.connect = connectTimeout }
        if let idleTimeout { target.timeouts.idle = idleTimeout }
        if let transfer { target.transfer = transfer }
        if let chunkSize { target.chunkSize = chunkSize }
        if let parallelParts { target.parallelParts = parallelParts }
        if let s3 { target.s3 = s3 }
        if let images { target.images = images }
        return target
    }

    /// The target these settings describe, with defaults for what is not given.
    public var target: Target { applied(to: Target()) }
}
