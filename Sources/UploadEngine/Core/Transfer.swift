import FormData

/// How a request's body goes to the server: one exchange, or a resumable
/// protocol of several (see "Transfers" in docs/ARCHITECTURE.md).
extension UploadRequest {
    /// Goes on from where it stopped after an interruption, instead of
    /// being sent again from byte 0.
    public var isResumable: Bool {
        transfer.isResumable
    }
}

public enum Transfer: Sendable, Hashable, Codable {
    /// One request carries the whole body (multipart, raw, JSON...).
    case single
    /// A tus 1.0 resumable upload: the URL is the creation endpoint and the
    /// body a `.rawFile`, sent in chunks from the server's offset.
    // Indirect: a request is copied into every task's snapshot, key and
    // event, and most requests are `.single`; inline, these settings made
    // every copy 100 bytes larger.
    indirect case tus(TusSettings)
    /// An object in S3-compatible storage: the body a `.rawFile`, sent as
    /// one `PutObject` or, from `multipartThreshold` up, a multipart upload.
    indirect case s3(S3Settings)

    public var isResumable: Bool {
        if case .single = self { return false }
        return true
    }

    /// Each resumable kind's driver: the one line a new kind adds here.
    func makeDriver() -> (any TransferDriver)? {
        switch self {
        case .single: return nil
        case .tus: return TusDriver()
        case .s3: return S3Driver()
        }
    }

    /// The word profiles, the CLI and the `t` dialog use.
    public var name: String {
        switch self {
        case .single: return "single"
        case .tus: return "tus"
        case .s3: return "s3"
        }
    }
}

/// How large each tus `PATCH` is.
public enum TusChunkSize: Sendable, Hashable, Codable {
    /// Starts at `first`; then each `PATCH`'s rate sizes a later chunk to
    /// about a second of transfer (at most twice the chunk before it),
    /// between `first` and `largest`. A fast link needs few round trips, and
    /// a slow one never risks more than a few seconds of work on one request.
    case automatic
    /// Always this many bytes (a 413 still halves it).
    case fixed(Int64)

    /// 8 MiB: under the 10 MB many proxies cap a request at.
    public static let first: Int64 = 8 << 20
    /// 64 MiB: under the 100 MB that CDN proxies such as Cloudflare's allow
    /// one request.
    public static let largest: Int64 = 64 << 20
    /// The transfer time an automatic chunk aims at.
    public static let aim: Double = 1

    /// The automatic size after a `PATCH` that moved `bytes` in `seconds`: a
    /// power-of-two multiple of `first`, at most `largest` and `ceiling`.
    public static func automatic(afterSending bytes: Int64, in seconds: Double, ceiling: Int64 = .max) -> Int64 {
        let affordable = Double(bytes) / max(seconds, 0.000_001) * aim
        var size = first
        while size * 2 <= largest, Double(size * 2) <= affordable { size *= 2 }
        return min(size, ceiling)
    }

    /// The size of the first chunk.
    public var initial: Int64 {
        switch self {
        case .automatic: return Self.first
        case .fixed(let bytes): return bytes
        }
    }

    // "auto", or a number of bytes (as journals before `automatic` wrote it).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let bytes = try? container.decode(Int64.self) {
            self = .fixed(bytes)
        } else if try container.decode(String.self) == "auto" {
            self = .automatic
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "a chunk size is bytes or \"auto\"")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .automatic: try container.encode("auto")
        case .fixed(let bytes): try container.encode(bytes)
        }
    }
}

/// The client's tus choices.
public struct TusSettings: Sendable, Hashable, Codable {
    /// Bytes per PATCH; a 413 halves it for the rest of the upload.
    public var chunkSize: TusChunkSize
    /// Partial uploads sent at once, joined with the concatenation extension.
    public var parallelParts: Int
    /// Extra `Upload-Metadata` pairs (from `-F name=value`), after `filename` and `filetype`.
    public var metadata: [HeaderField]
    /// Send `Upload-Checksum` when the server offers the checksum extension.
    public var checksum: Bool

    public init(
        chunkSize: TusChunkSize = .automatic, parallelParts: Int = 1, metadata: [HeaderField] = [],
        checksum: Bool = true
    ) {
        self.chunkSize = chunkSize
        self.parallelParts = parallelParts
        self.metadata = metadata
        self.checksum = checksum
    }
}

/// The smallest durable fact that lets a resumable transfer go on after any
/// fault, even in another process: the engine reports each new one to its
/// monitors (`UploadEvent.checkpoint`), the journal keeps it, and
/// `UploadEngine.restore` takes it back.
public enum TransferCheckpoint: Sendable, Hashable, Codable {
    case tus(TusCheckpoint)
    /// One file sent as partial tus uploads, joined by concatenation.
    case tusParts(TusPartsCheckpoint)
    case s3(S3Checkpoint)

    /// Bytes the server is known to hold.
    public var offset: Int64 {
        switch self {
        case .tus(let tus): return tus.offset
        case .tusParts(let parts): return parts.parts.reduce(0) { $0 + ($1?.offset ?? 0) }
        case .s3(let s3): return s3.offset
        }
    }

    /// The bytes the transfer carries in all, when known.
    public var length: Int64? {
        switch self {
        case .tus(let tus): return tus.knownLength
        case .tusParts(let parts): return parts.ranges.last?.upperBound
        case .s3(let s3): return s3.length
        }
    }

    /// Where the upload lives on the server: the final upload's URL once
    /// the parts are joined, before that the first part's.
    public var uploadURL: String {
        switch self {
        case .tus(let tus): return tus.uploadURL
        case .tusParts(let parts): return parts.finalURL ?? parts.parts.lazy.compactMap { $0?.uploadURL }.first ?? ""
        case .s3(let s3): return s3.uploadID
        }
    }

    /// `tus upload URL`, or `S3 multipart upload ID, 3 of 5 parts`, as the
    /// result line and the Response pane show it (the URL's secrets masked).
    public var summary: String {
        switch self {
        case .tus, .tusParts: return "tus upload " + Secrets.displayURL(uploadURL)
        case .s3(let s3): return "S3 multipart upload \(s3.uploadID), \(s3.parts.count) of \(s3.partCount) parts"
        }
    }
}

/// Partial uploads of one file: which bytes each carries, how far each got,
/// and the final upload once the server joined them.
public struct TusPartsCheckpoint: Sendable, Hashable, Codable {
    public var ranges: [Range<Int64>]
    /// `nil` for a part not created yet.
    public var parts: [TusCheckpoint?]
    public var finalURL: String?

    public init(ranges: [Range<Int64>], parts: [TusCheckpoint?], finalURL: String? = nil) {
        self.ranges = ranges
        self.parts = parts
        self.finalURL = finalURL
    }
}

/// A tus upload the server created.
public struct TusCheckpoint: Sendable, Hashable, Codable {
    /// Absolute (a relative `Location` is resolved against the creation URL).
    public var uploadURL: String
    /// The server's offset, as it last confirmed it.
    public var offset: Int64
    /// `Upload-Length`; `deferredLength` while a stream has not ended.
    public var length: Int64
    /// The file when the upload was created: bytes from a file that differs
    /// are never appended to it. `nil` for standard input.
    public var file: FileSnapshot?

    public static let deferredLength: Int64 = -1

    /// `length`, unless it is still deferred.
    public var knownLength: Int64? { length == Self.deferredLength ? nil : length }

    public var isComplete: Bool { knownLength.map { offset >= $0 } ?? false }

    public init(uploadURL: String, offset: Int64, length: Int64, file: FileSnapshot?) {
        self.uploadURL = uploadURL
        self.offset = offset
        self.length = length
        self.file = file
    }
}
